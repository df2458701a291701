"""The knowledge base: loading, schema, validation and the decision graph."""

from triage.kb.base import KnowledgeBase
from triage.kb.loader import KnowledgeError, Node

__all__ = ["KnowledgeBase", "KnowledgeError", "Node"]
