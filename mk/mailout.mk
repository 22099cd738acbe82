# mailout: filled in by its area
