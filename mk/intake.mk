# intake: filled in by its area
