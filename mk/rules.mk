# rules: filled in by its area
