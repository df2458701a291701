# train.py excerpt (shubhamagarwal92/mmd): evaluate() sets eval mode, training never sets train mode back
import torch
import torch.nn as nn
from torch import optim


def evaluate(valid_pkl_path, loss_criterion, model, config, vocab_size, annoyIndex,
             annoyPkl, use_cuda=False):
    model.eval()
    valid_data = pkl.load(open(valid_pkl_path, 'r'))
    batch_size = config['data']['batch_size']
    total_loss = 0.
    for batch_id in range(num_valid_batch):
        batch_data = valid_data[batch_id*batch_size:(batch_id+1)*batch_size]
        text_enc_input, text_enc_in_len, image_enc_input, dec_text_input, \
            dec_out_seq, dec_seq_length = utils.get_batch_mmd_data(batch_data, use_cuda=use_cuda, volatile=True)
        dec_output_prob = model(text_enc_input, image_enc_input, text_enc_in_len,
                                dec_text_input, dec_out_seq, decode=False)
        loss_val = loss_criterion(dec_output_prob.contiguous().view(-1, vocab_size), dec_out_seq.view(-1))
        total_loss += loss_val.data[0]


def main(args):
    model = model_type(src_vocab_size=vocab_size, tgt_vocab_size=vocab_size,
                       dropout_enc=config['model']['dropout_enc'],
                       dropout_dec=config['model']['dropout_dec'])
    model = torch_utils.gpu_wrapper(model, use_cuda=use_cuda)
    optimizer = optim.Adam(model.parameters(), lr=config['training']['lr'])
    loss_criterion = nn.CrossEntropyLoss(ignore_index=config['data']['pad_id'])
    train_data = pkl.load(open(args.train_pkl_path, 'r'))
    for epoch in range(config['training']['num_epochs']):
        total_loss = 0.
        for batch_id in range(num_train_batch):
            batch_data = train_data[batch_id*batch_size:(batch_id+1)*batch_size]
            text_enc_input, text_enc_in_len, image_enc_input, dec_text_input, \
                dec_out_seq, dec_seq_length = utils.get_batch_mmd_data(batch_data, use_cuda=use_cuda)
            optimizer.zero_grad()
            dec_output_prob = model(text_enc_input, image_enc_input, text_enc_in_len,
                                    dec_text_input, dec_out_seq, teacher_forcing_ratio=1)
            loss = loss_criterion(dec_output_prob.contiguous().view(-1, vocab_size),
                                  dec_out_seq.view(-1))
            loss.backward()
            optimizer.step()
            nn.utils.clip_grad_norm(model.parameters(), config['training']['clip_grad'])
            total_loss += loss.data[0]
        if (epoch+1) % config['training']['evaluate_every'] == 0:
            evaluate(args.valid_pkl_path, loss_criterion, model, config, vocab_size,
                     annoyIndex, annoyPkl, use_cuda=use_cuda)
        if (epoch+1) % config['training']['save_every'] == 0:
            torch.save(model.state_dict(), os.path.join(args.model_path, 'model_params_%d.pkl' % (epoch+1)))
