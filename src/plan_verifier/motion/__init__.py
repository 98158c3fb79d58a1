"""The execution level's motion model (seed 004's L3, contract §7): the plan's motions lowered
from the IR (`program`), their joint and Cartesian paths (`paths`), how long they take
(`timing`), the swept-volume collision sweep (`sweep`) and the simulation that turns all of it
into the neutral facts the R-KIN and R-COL rules judge (`simulate`, `facts`); `lint` checks a
cell's taught positions with the same model.
"""
