const model_train = [
    {
        "loss": "0.6874",
        "grad_norm": "2.642327785",
        "learning_rate": "3.62E-06",
        "epoch": "0.02"
    },
    {
        "loss": "0.6681",
        "grad_norm": "10.02102089",
        "learning_rate": "7.24E-06",
        "epoch": "0.04"
    },
    {
        "loss": "0.6673",
        "grad_norm": "2.565160036",
        "learning_rate": "7.09E-06",
        "epoch": "0.06"
    },
    {
        "loss": "0.6558",
        "grad_norm": "6.731729507",
        "learning_rate": "6.94E-06",
        "epoch": "0.08"
    },
    {
        "loss": "0.6687",
        "grad_norm": "15.67031288",
        "learning_rate": "6.79E-06",
        "epoch": "0.1"
    },
    {
        "loss": "0.6509",
        "grad_norm": "3.011896133",
        "learning_rate": "6.63E-06",
        "epoch": "0.12"
    },
    {
        "loss": "0.6631",
        "grad_norm": "2.480739117",
        "learning_rate": "6.48E-06",
        "epoch": "0.14"
    },
    {
        "loss": "0.6418",
        "grad_norm": "8.687903404",
        "learning_rate": "6.33E-06",
        "epoch": "0.16"
    },
    {
        "loss": "0.6095",
        "grad_norm": "20.0694828",
        "learning_rate": "6.18E-06",
        "epoch": "0.18"
    },
    {
        "loss": "0.5676",
        "grad_norm": "14.53165054",
        "learning_rate": "6.03E-06",
        "epoch": "0.2"
    },
    {
        "loss": "0.5592",
        "grad_norm": "15.67251301",
        "learning_rate": "5.88E-06",
        "epoch": "0.22"
    },
    {
        "loss": "0.5551",
        "grad_norm": "25.63338852",
        "learning_rate": "5.72E-06",
        "epoch": "0.24"
    },
    {
        "loss": "0.5129",
        "grad_norm": "9.402984619",
        "learning_rate": "5.57E-06",
        "epoch": "0.26"
    },
    {
        "loss": "0.5187",
        "grad_norm": "17.77438164",
        "learning_rate": "5.42E-06",
        "epoch": "0.28"
    },
    {
        "loss": "0.5155",
        "grad_norm": "22.169384",
        "learning_rate": "5.27E-06",
        "epoch": "0.3"
    },
    {
        "loss": "0.5132",
        "grad_norm": "24.79624176",
        "learning_rate": "5.12E-06",
        "epoch": "0.32"
    },
    {
        "loss": "0.5094",
        "grad_norm": "9.299670219",
        "learning_rate": "4.97E-06",
        "epoch": "0.34"
    },
    {
        "loss": "0.4982",
        "grad_norm": "6.316504478",
        "learning_rate": "4.81E-06",
        "epoch": "0.36"
    },
    {
        "loss": "0.5147",
        "grad_norm": "15.45746803",
        "learning_rate": "4.66E-06",
        "epoch": "0.38"
    },
    {
        "loss": "0.4667",
        "grad_norm": "16.83036804",
        "learning_rate": "4.51E-06",
        "epoch": "0.4"
    },
    {
        "loss": "0.4919",
        "grad_norm": "11.8737402",
        "learning_rate": "4.36E-06",
        "epoch": "0.42"
    },
    {
        "loss": "0.4848",
        "grad_norm": "17.92984581",
        "learning_rate": "4.21E-06",
        "epoch": "0.44"
    },
    {
        "loss": "0.475",
        "grad_norm": "14.74704075",
        "learning_rate": "4.06E-06",
        "epoch": "0.46"
    },
    {
        "loss": "0.4716",
        "grad_norm": "17.37598228",
        "learning_rate": "3.91E-06",
        "epoch": "0.48"
    },
    {
        "loss": "0.5086",
        "grad_norm": "45.93520355",
        "learning_rate": "3.75E-06",
        "epoch": "0.5"
    },
    {
        "loss": "0.4625",
        "grad_norm": "9.898379326",
        "learning_rate": "3.60E-06",
        "epoch": "0.52"
    },
    {
        "loss": "0.4867",
        "grad_norm": "14.08928776",
        "learning_rate": "3.45E-06",
        "epoch": "0.54"
    },
    {
        "loss": "0.4911",
        "grad_norm": "19.0915451",
        "learning_rate": "3.30E-06",
        "epoch": "0.56"
    },
    {
        "loss": "0.4667",
        "grad_norm": "13.20123386",
        "learning_rate": "3.15E-06",
        "epoch": "0.58"
    },
    {
        "loss": "0.4692",
        "grad_norm": "3.627383709",
        "learning_rate": "3.00E-06",
        "epoch": "0.6"
    },
    {
        "loss": "0.4637",
        "grad_norm": "12.21026897",
        "learning_rate": "2.84E-06",
        "epoch": "0.62"
    },
    {
        "loss": "0.466",
        "grad_norm": "14.61767006",
        "learning_rate": "2.69E-06",
        "epoch": "0.64"
    },
    {
        "loss": "0.4797",
        "grad_norm": "18.11928558",
        "learning_rate": "2.54E-06",
        "epoch": "0.66"
    },
    {
        "loss": "0.4469",
        "grad_norm": "22.77230835",
        "learning_rate": "2.39E-06",
        "epoch": "0.68"
    },
    {
        "loss": "0.431",
        "grad_norm": "30.31559753",
        "learning_rate": "2.24E-06",
        "epoch": "0.7"
    },
    {
        "loss": "0.475",
        "grad_norm": "23.9217186",
        "learning_rate": "2.09E-06",
        "epoch": "0.72"
    },
    {
        "loss": "0.43",
        "grad_norm": "19.44438362",
        "learning_rate": "1.93E-06",
        "epoch": "0.74"
    },
    {
        "loss": "0.4391",
        "grad_norm": "12.78151417",
        "learning_rate": "1.78E-06",
        "epoch": "0.76"
    },
    {
        "loss": "0.4544",
        "grad_norm": "12.36422539",
        "learning_rate": "1.63E-06",
        "epoch": "0.78"
    },
    {
        "loss": "0.4505",
        "grad_norm": "20.86053658",
        "learning_rate": "1.48E-06",
        "epoch": "0.8"
    },
    {
        "loss": "0.4599",
        "grad_norm": "9.516726494",
        "learning_rate": "1.33E-06",
        "epoch": "0.82"
    },
    {
        "loss": "0.4318",
        "grad_norm": "20.14130592",
        "learning_rate": "1.18E-06",
        "epoch": "0.84"
    },
    {
        "loss": "0.4235",
        "grad_norm": "11.53771591",
        "learning_rate": "1.03E-06",
        "epoch": "0.86"
    },
    {
        "loss": "0.4249",
        "grad_norm": "28.15208054",
        "learning_rate": "8.74E-07",
        "epoch": "0.88"
    },
    {
        "loss": "0.4333",
        "grad_norm": "21.76665878",
        "learning_rate": "7.22E-07",
        "epoch": "0.9"
    },
    {
        "loss": "0.447",
        "grad_norm": "5.4077878",
        "learning_rate": "5.71E-07",
        "epoch": "0.92"
    },
    {
        "loss": "0.4249",
        "grad_norm": "19.94287109",
        "learning_rate": "4.19E-07",
        "epoch": "0.94"
    },
    {
        "loss": "0.4328",
        "grad_norm": "15.92112541",
        "learning_rate": "2.67E-07",
        "epoch": "0.96"
    },
    {
        "loss": "0.4381",
        "grad_norm": "18.64204979",
        "learning_rate": "1.16E-07",
        "epoch": "0.98"
    }
];