"""The parameter schema of the checks, defined in the knowledge layer (triage.kb.params) so the
knowledge validator can use it; re-exported here, where the checks declare their parameters."""

from triage.kb.params import Answer, Names, Optional, ParamProblem, Params, WindowParams, field_names, params, parse

__all__ = ["Answer", "Names", "Optional", "ParamProblem", "Params", "WindowParams", "field_names", "params", "parse"]
