"""OpenAI Chat's names: the roles of its messages, and the content-part types of other dialects
that its lists never hold.

Shared by the OpenAI Chat adapter and the quick proof (`patchcore.engine.quick`), and kept
apart from both so that the quick proof of a clean file does not import the dialect adapters.
"""

from __future__ import annotations

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
#: Content block types that carry another dialect's tool calls or results.
FOREIGN_PARTS = frozenset(
    {
        "tool_use",
        "server_tool_use",
        "mcp_tool_use",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
    }
)
