"""The page layer: conference pages made once per version, personal parts filled per visitor.

docs/pages.md explains it; each module's docstring says what it decides.
"""
