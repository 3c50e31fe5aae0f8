"""Layouts: how an input holds its conversations, and how repairs are written back."""
