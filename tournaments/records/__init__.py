"""File formats the experiments read and write: EPD records, line-numbered data files,
SQLite files and the opening record every stored game carries."""
