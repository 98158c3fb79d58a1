"""plan_verifier: verify robot plans (TDL programs, JSON step plans) before execution.

The core imports no ROS. Typical use::

    from plan_verifier import Verifier
    report = Verifier("ur10e").verify(tdl_text)
    if report.approved: ...
"""

__version__ = "0.1.0"

__all__ = ["Verifier", "__version__"]


def __getattr__(name: str):
    # Lazy so that `import plan_verifier` (e.g. for the version) stays cheap.
    if name == "Verifier":
        from plan_verifier.pipeline import Verifier

        return Verifier
    raise AttributeError(name)
