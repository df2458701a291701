# https://github.com/BatsResearch/labelmodels/issues/4
# --- labelmodels/label_model.py
import logging
import numpy as np
from scipy import sparse
import torch
import torch.nn as nn


class LabelModel(nn.Module):
    """Parent class for all generative label models.

    Concrete subclasses should implement at least forward(),
    estimate_label_model(), and get_label_distribution().
    """
    def forward(self, *args):
        """Computes the marginal log-likelihood of a batch of observed
        function outputs provided as input.

        :param args: batch of observed function outputs and related metadata
        :return: 1-d tensor of log-likelihoods, one for each input example
        """
        raise NotImplementedError

    def estimate_label_model(self, *args, config=None):
        """Learns the parameters of the label model from observed
        function outputs.

        Subclasses that implement this method should call _do_estimate_label_model()
        if possible, to provide consistent behavior.

        :param args: observed function outputs and related metadata
        :param config: an instance of LearningConfig. If none, will initialize
                       with default LearningConfig constructor
        """
        raise NotImplementedError

    def get_label_distribution(self, *args):
        """Returns the estimated posterior distribution over true labels given
        observed function outputs.

        :param args: observed function outputs and related metadata
        :return: distribution over true labels. Structure depends on model type
        """
        raise NotImplementedError

    def get_most_probable_labels(self, *args):
        """Returns the most probable true labels given observed function outputs.

        :param args: observed function outputs and related metadata
        :return: 1-d Numpy array of most probable labels
        """
        raise NotImplementedError

    def _do_estimate_label_model(self, batches, config):
        """Internal method for optimizing model parameters.

        :param batches: sequence of inputs to forward(). The sequence must
                        contain tuples, even if forward() takes one
                        argument (besides self)
        :param config: an instance of LearningConfig
        """

        # Sets up optimization hyperparameters
        optimizer = torch.optim.SGD(
            self.parameters(), lr=config.step_size, momentum=config.momentum,
            weight_decay=0)
        if config.step_schedule is not None and config.step_size_mult is not None:
            scheduler = torch.optim.lr_scheduler.MultiStepLR(
                optimizer, config.step_schedule, gamma=config.step_size_mult)
        else:
            scheduler = None

        # Iterates over epochs
        for epoch in range(config.epochs):
            logging.info('Epoch {}/{}'.format(epoch + 1, config.epochs))
            if scheduler is not None:
                scheduler.step()

            # Sets model to training mode
            self.train()
            running_loss = 0.0

            # Iterates over training data
            for i_batch, inputs in enumerate(batches):
                optimizer.zero_grad()
                log_likelihood = self(*inputs)
                loss = -1 * torch.mean(log_likelihood)
                loss += self._get_regularization_loss()
                loss.backward()
                optimizer.step()
                running_loss += loss
            epoch_loss = running_loss / len(batches)
            logging.info('Train Loss: %.6f', epoch_loss)

    def _get_regularization_loss(self):
        """Gets the value of the regularization loss for the current values of
        the model's parameters

        :return: regularization loss
        """
        return 0.0
