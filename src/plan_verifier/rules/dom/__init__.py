"""R-DOM: domain conventions — the standard pick-and-place pattern, safe heights, delays after gripper actions."""
