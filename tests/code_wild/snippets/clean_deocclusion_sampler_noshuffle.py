# trainer.py lines quoted in XiaohangZhan/deocclusion#42; answer: shuffle must be False when a sampler is given
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

train_sampler = DistributedSampler(train_dataset)
self.train_loader = DataLoader(train_dataset,
                               batch_size=args.data['batch_size'],
                               shuffle=False,
                               num_workers=args.data['workers'],
                               pin_memory=False,
                               sampler=train_sampler)
