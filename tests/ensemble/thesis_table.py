"""The thesis's 16 players as published (instance notation), shared by the distribution
and config tests."""

THESIS_TABLE = {
    "3a": "(MB)(MX)(MK)",
    "4a": "(MB)(MX)(MK)(MP)",
    "5a": "(MB)(MX)(MK)(MP)(MA)",
    "6a": "(MB)(MX)(MK)(MP)(MA)(MR)",
    "3b": "(MBXP)(MBKR)(MXKA)",
    "4b": "(MBXA)(MBKR)(MXPA)(MKPR)",
    "5b": "(MBXK)(MBKA)(MBPR)(MXKR)(MXPA)",
    "6b": "(MBXK)(MBKA)(MBPR)(MXPA)(MXAR)(MKPR)",
    "3c": "(MB)(MX)(MBXKPAR)",
    "4c": "(MB)(MX)(MBXKPAR)(MBXKPA)",
    "5c": "(MB)(MX)(MK)(MBXKPAR)(MBXKPA)",
    "6c": "(MB)(MX)(MK)(MBXKPAR)(MBXKPA)(MBXKPR)",
    "3d": "(MB)(MBX)(MBXK)",
    "4d": "(MB)(MBX)(MBXK)(MBXKP)",
    "5d": "(MB)(MBX)(MBXK)(MBXKP)(MBXKPA)",
    "6d": "(MB)(MBX)(MBXK)(MBXKP)(MBXKPA)(MBXKPAR)",
}
