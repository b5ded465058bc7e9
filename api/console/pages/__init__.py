"""The console's pages, one module each; common.py holds what they share."""
