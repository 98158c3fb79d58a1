"""Seed 000 §2.2's two prompts for the llm grader, verbatim.

They are `str.format` templates (hence the doubled braces) with the fields
`natural_language` and `tdl_code`; a JSON plan goes where the TDL code would.
Stage 1 (QUICK) answers verdict + confidence; below `DETAILED_BELOW` the
grader asks stage 2 (DETAILED) for the per-category analysis.
"""

DETAILED_BELOW = 80

QUICK = """
You are an expert in robot programming validation. Your task is to quickly verify if a TDL program correctly implements a natural language instruction.

# Natural Language Instruction:
{natural_language}

# Generated TDL Code:
{tdl_code}

# Quick Validation Checklist:
1. Object Match: Does the TDL reference the correct objects mentioned in the instruction?
2. Action Match: Does the TDL perform the correct actions (pick, place, move, etc.)?
3. Location Match: Are source and destination locations correct?
4. Sequence Match: Is the order of operations logical?

# Response Format (JSON):
{{
  "verdict": "PASS" or "FAIL",
  "confidence": 0-100,
  "brief_reason": "one sentence explanation"
}}

# Examples:

## Example 1:
NL: "Move the box from A to B"
TDL: [code with A as source, B as destination]
Response: {{"verdict": "PASS", "confidence": 95, "brief_reason": "Correct source A and destination B"}}

## Example 2:
NL: "Pick up the red cube"
TDL: [code referencing "blue_cube"]
Response: {{"verdict": "FAIL", "confidence": 90, "brief_reason": "Object mismatch: red vs blue"}}

## Example 3:
NL: "Place the part gently"
TDL: [code with velocity=1000]
Response: {{"verdict": "FAIL", "confidence": 85, "brief_reason": "High velocity contradicts 'gently' requirement"}}

# Now validate:
Response (JSON only):
"""

DETAILED = """
You are an expert robot programming validator conducting a thorough analysis.

# Task Description (Natural Language):
{natural_language}

# Generated TDL Program:
{tdl_code}

# Detailed Validation Requirements:

## 1. Object Validation
- Extract all objects mentioned in NL
- Verify each object is correctly defined in TDL
- Check if object properties match (color, size, type)

## 2. Action Validation
- Extract all actions mentioned in NL (pick, place, move, transfer, etc.)
- Verify corresponding TDL commands exist
- Check action parameters (gripper state, motion type)

## 3. Spatial Validation
- Verify source location matches NL description
- Verify destination location matches NL description
- Check if intermediate waypoints are reasonable

## 4. Temporal Validation
- Verify sequence of operations is logical
- Check if timing constraints are met (delays, synchronization)

## 5. Safety & Quality Validation
- Check if motion is safe (no sudden movements)
- Verify velocities match task requirements (gentle, fast, precise, etc.)
- Validate gripper forces if mentioned

# Analysis Output Format (JSON):
{{
  "overall_verdict": "PASS" or "FAIL",
  "confidence": 0-100,
  "detailed_analysis": {{
    "object_validation": {{
      "status": "PASS/FAIL",
      "details": "explanation"
    }},
    "action_validation": {{
      "status": "PASS/FAIL",
      "details": "explanation"
    }},
    "spatial_validation": {{
      "status": "PASS/FAIL",
      "details": "explanation"
    }},
    "temporal_validation": {{
      "status": "PASS/FAIL",
      "details": "explanation"
    }},
    "safety_validation": {{
      "status": "PASS/FAIL",
      "details": "explanation"
    }}
  }},
  "issues_found": ["list", "of", "specific", "issues"],
  "suggestions": ["list", "of", "improvement", "suggestions"]
}}

Provide detailed analysis (JSON only):
"""
