"""Writing and loading match files in a test's folder."""
import textwrap

import pytest

from tournaments.match.config import load_match


def write(tmp_path, body, name="m.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body) + f"output: {tmp_path / 'out'}\n")
    return load_match(path)


def problems(tmp_path, text: str) -> str:
    """What loading a match file of ``text`` (``tmp_path/bad.yaml``) reports."""
    from base.config import ConfigError
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_match(tmp_path / "bad.yaml")
    return str(info.value)
