"""toolpatch inside other frameworks' run loops: the LangChain agent middleware
(`patchcore.langchain`), called as a framework calls it, and in real ``create_agent`` graphs with
a checkpointer (those are marked ``slow``)."""
