"""R-COL: collisions of the execution level — links and tool against the floor, the cell's obstacles and each other."""
