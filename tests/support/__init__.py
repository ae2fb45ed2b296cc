"""What the tests share, by topic: marks and phases (marks.py)."""
