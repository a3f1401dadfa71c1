"""TOML case files: schema and overrides, the model built from a case, and the checks of a built model before solving."""
