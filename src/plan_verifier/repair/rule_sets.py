"""Which findings the repair treats how, by the rules that own them (each id read from its rule's class)."""

from __future__ import annotations

from plan_verifier.findings import Finding
from plan_verifier.repair.result import GAVE_UP, NOT_REPAIRABLE
from plan_verifier.rules.col.r_col_001 import RCol001
from plan_verifier.rules.col.r_col_002 import RCol002
from plan_verifier.rules.col.r_col_003 import RCol003
from plan_verifier.rules.kin.r_kin_000 import RKin000
from plan_verifier.rules.kin.r_kin_001 import RKin001
from plan_verifier.rules.kin.r_kin_002 import RKin002
from plan_verifier.rules.kin.r_kin_003 import RKin003
from plan_verifier.rules.kin.r_kin_004 import RKin004
from plan_verifier.rules.kin.r_kin_005 import RKin005
from plan_verifier.rules.kin.r_kin_006 import RKin006
from plan_verifier.rules.kin.r_kin_007 import RKin007
from plan_verifier.rules.kin.r_kin_009 import RKin009
from plan_verifier.rules.saf.r_saf_001 import RSaf001
from plan_verifier.rules.saf.r_saf_002 import RSaf002
from plan_verifier.rules.saf.r_saf_003 import RSaf003
from plan_verifier.rules.saf.r_saf_004 import RSaf004
from plan_verifier.rules.saf.r_saf_007 import RSaf007
from plan_verifier.rules.saf.r_saf_008 import RSaf008
from plan_verifier.rules.saf.r_saf_009 import RSaf009

#: A number out of its allowed range: clamped (evidence `min`/`max`). JSON plans' step fields by rule.
CLAMPED = frozenset({RSaf002.id, RSaf003.id, RSaf009.id})
STEP_FIELDS = {RSaf002.id: "velocity", RSaf003.id: "acceleration"}
#: A joint beyond its speed along a line: the largest velocity that passes.
JOINT_SPEED = RKin005.id
SPEED = CLAMPED | {JOINT_SPEED}
#: A path a line cannot follow (branch flip, workspace edge, singularity).
PATH = frozenset({RKin003.id, RKin004.id})
#: A collision on the way (floor, obstacle, the robot itself).
COLLISION = frozenset({RCol001.id, RCol002.id, RCol003.id})
#: The target itself: never moved, so never repaired (the nearest alternative is offered).
TARGET = frozenset({RKin001.id, RKin002.id, RSaf001.id, RSaf004.id, RSaf007.id})

#: Why a finding is no motion problem, by rule id or id prefix (the first that matches).
WHY_NOT = (
    ("R-SYN", "the program could not be read as written: only corrected text can be checked for motions"),
    ("R-GRF", "a finding of the cell graph (positions, moves, tools and routines the cell allows): the plan's choice, not a motion"),
    ("R-SEM", "the program does not do what the instruction asks: a repair keeps the task as it is"),
    ("R-CON", "a finding about the program's structure or names, not its motions"),
    ("R-DOM", "a finding about the program's structure, not its motions"),
    (RKin000.id, "the execution level could not simulate the motions: nothing to repair them against"),
    (RKin006.id, "the motion names a tool the robot spec does not define: only the program's author knows which tool it means"),
    (RKin009.id, "the start the verifier assumes is a configuration the robot cannot be standing in: a problem of the cell's "
                 "start position or the given start joints, not of the plan's motions"),
    (RKin007.id, "an approved-actions file whose joint targets no longer match: verify the plan it came from again"),
    (RSaf008.id, "the payload is above the robot's rating: no motion change carries it"),
    ("R-SAF", "a target or setting outside the robot's limits: a repair never moves a target"),
    (RKin001.id, "the target has no inverse-kinematics solution in its orientation: a repair never moves a target"),
    (RKin002.id, "every solution of the target is outside the joint limits: a repair never moves a target"),
)


def why_not(finding: Finding) -> tuple[str, str]:
    """Why a finding is no motion problem (`NOT_REPAIRABLE`), or that the repair found nothing for it (`GAVE_UP`)."""
    for prefix, why in WHY_NOT:
        if finding.rule_id.startswith(prefix):
            return why, NOT_REPAIRABLE
    return "no motion change the repair tried removed it", GAVE_UP
