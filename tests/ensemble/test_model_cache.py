"""Model files named by selection criteria: read once per process and criterion, and a missing
or unnamed model refused with the criterion and the command that writes one."""
import pytest

from ensemble import model_cache
from ensemble.model_cache import cached_model


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch):
    monkeypatch.setattr(model_cache, "_LOADED", {})


def test_a_model_file_is_read_once_per_criterion(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gate.json").write_text("{}")
    reads = []

    def load(path):
        reads.append(path)
        return {"read": len(reads)}

    first = cached_model("gate.json", "routed", "concilio fit routing", load)
    again = cached_model(str(tmp_path / "gate.json"), "routed", "concilio fit routing", load)
    assert first is again and len(reads) == 1  # the same file by another name: still one read
    other = cached_model("gate.json", "calibrated_vote", "concilio fit calibration", load)
    assert other == {"read": 2}  # another criterion reads it for itself


def test_a_missing_or_unnamed_model_names_the_criterion_and_the_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"routed: no model \(give model: FILE; concilio fit routing writes one\)"):
        cached_model(None, "routed", "concilio fit routing", lambda p: p)
    with pytest.raises(ValueError, match="calibrated_vote: no such model file: nowhere.json"):
        cached_model("nowhere.json", "calibrated_vote", "concilio fit calibration", lambda p: p)
