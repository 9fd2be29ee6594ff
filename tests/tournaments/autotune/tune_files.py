"""A tiny auto-tune setting for the tests: a labelled set cut from the shipped one and a
config over it."""
import textwrap


def tiny_set(data_dir, tmp_path, n=16):
    lines = (data_dir / "training" / "selfplay-5k.epd").read_text().splitlines()[:n]
    path = tmp_path / "train.epd"
    path.write_text("\n".join(lines) + "\n")
    return path


def write_config(tmp_path, train, extra=""):
    text = textwrap.dedent(f"""
        name: tiny
        train: {{path: {train}, validate: 0.25, seed: 3}}
        confirm: [{{path: {train}, name: again}}]
        pool: {{instances: [MB, MBX], full: true}}
        budget: {{nodes: 300}}
        criteria: [majority, depth_confidence]
        size: {{min: 2, max: 2}}
        compare: []
        out: {tmp_path / "tuned.yaml"}
        store: {tmp_path / "store.sqlite"}
        report: {tmp_path / "report"}
        workers: 1
        """) + extra
    (tmp_path / "tune.yaml").write_text(text)
    return tmp_path / "tune.yaml"
