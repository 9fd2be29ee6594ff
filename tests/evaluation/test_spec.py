"""Masks and weights: both spellings accepted, every bad input named."""
import pytest

from evaluation.spec import EvalSpec, EvalSpecError, mask_letters, parse_mask, parse_weights


@pytest.mark.parametrize("text, value", [("MKP", 76), ("pkm", 76), (76, 76), ("76", 76), ("MBXKPAR", 127),
                                         ("M", 64), ("R", 1)])
def test_mask_spellings(text, value):
    assert parse_mask(text) == value


def test_letters_are_canonical():
    assert mask_letters(76) == "MKP" and mask_letters(127) == "MBXKPAR"


@pytest.mark.parametrize("bad, message", [("MQ", r"unknown category letter\(s\) Q"), ("", "empty"), (0, "1-127"),
                                          (128, "1-127"), (-3, "1-127"), ("MM", "repeated"), (True, "expected"),
                                          (1.5, "expected")])
def test_bad_masks(bad, message):
    with pytest.raises(EvalSpecError, match=message):
        parse_mask(bad)


def test_weights():
    assert parse_weights(None) == (1.0,) * 7
    assert parse_weights({"k": 2}) == (1, 1, 1, 2, 1, 1, 1)
    for bad, message in [([1, 2], "expected 7"), ([1] * 6 + ["x"], "R weight 'x' is not a number"),
                         ([1] * 6 + [-1], "must be a finite number"), ({"Z": 1}, "unknown category key")]:
        with pytest.raises(EvalSpecError, match=message):
            parse_weights(bad)


def test_spec_str_and_masked_weights():
    spec = EvalSpec.parse("MKP", [1, 1, 1, 2, 1, 1, 1])
    assert str(spec) == "MKP (76) [M=1 K=2 P=1]"
    assert list(spec.weight_array()) == [1, 0, 0, 2, 1, 0, 0]
