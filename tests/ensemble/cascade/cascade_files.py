"""A cascade file for the tests: an inline pair of instances that disagree, ABDADA on one worker."""

# Two instances that disagree in the start position at 3,000 nodes (test_player checks it), inline.
ENSEMBLE = "name: pair\ninstances: [MB, MX]\nselection: {criterion: majority}\ncluster: {inline: true}\n"


ABDADA = "algorithm: abdada\nworkers: 1\nshared_table: true\nsearch: {hash_mb: 4}\n"


def write(tmp_path, share=0.5, unanimous="play", decomposition=ABDADA):
    (tmp_path / "pair.yaml").write_text(ENSEMBLE)
    (tmp_path / "abdada.yaml").write_text(decomposition)
    (tmp_path / "cascade.yaml").write_text(
        f"name: c\nensemble: {tmp_path / 'pair.yaml'}\ndecomposition: {tmp_path / 'abdada.yaml'}\n"
        f"share: {share}\nunanimous: {unanimous}\n")
    return tmp_path / "cascade.yaml"
