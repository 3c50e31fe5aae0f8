"""The byte layer: decoding bytes into records, spans of JSON values, splicing edits into bytes."""
