# transport: filled in by its area
