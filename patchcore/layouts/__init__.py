"""Layouts: how an input holds its conversations, and how repairs are written back
(`patchcore.layouts.base`: the interface; one module a kind of input).

`patchcore.pipeline.layout_of` is the one place an input's layout is decided, from its head
(`patchcore.layouts.base.Head`): the agent session layouts first (their first entry tells), then
one message per line, one conversation per line, a JSON document written as a string, and a
JSON document. Whoever needs the layout (the pipeline, the batcher, the Dask integration,
``toolpatch show``) asks it, with the whole input or just its start.
"""
