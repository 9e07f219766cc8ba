"""The error every user-facing problem with a file or the installation is reported as."""


class FileProblem(Exception):
    """A user file cannot be used; the message names the file and what is wrong."""
