"""A trained learned criterion: features never known in training read as zero, and the
ranking done with numpy alone."""
import math

import pytest

from ensemble.learned_model import LearnedModel, feature_array
from ensemble.rankers import LogisticRanker

NAN = float("nan")


def test_a_feature_never_known_in_training_is_read_as_zero():
    assert feature_array([[NAN, 1.0], [NAN, NAN]], empty=[0]).tolist()[0] == [0.0, 1.0]
    model = LearnedModel(LogisticRanker([1.0, 1.0], 0.0), "logistic", features=("a", "b"), empty=(0,))
    assert model.rank([[NAN, 1.0]]) == pytest.approx([1 / (1 + math.exp(-1.0))])
