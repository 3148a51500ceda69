"""Exceptions the engine raises. Front ends present them (CLI: one line + exit code; GUI: dialog)."""


class EngineError(Exception):
    """Base class: every error the engine raises on purpose."""

    exit_code = 1


class LibraryError(EngineError):
    """The library folder or its database cannot be used."""


class DocumentError(EngineError):
    """One file could not be ingested; the message says why in plain words."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class UnsupportedFileError(DocumentError):
    """The file type is not one we can read."""


class EncryptedDocumentError(DocumentError):
    """The PDF needs a password."""


class CorruptDocumentError(DocumentError):
    """The file is damaged, empty or not what its name says."""


class QueryError(EngineError):
    """The query is empty or cannot be searched."""

    exit_code = 2


class ModelError(EngineError):
    """A model role has no usable model (missing, wrong file, fails to load)."""

    def __init__(self, role: str, reason: str):
        super().__init__(f"{role}: {reason}")
        self.role = role
        self.reason = reason


class Cancelled(EngineError):
    """A long job was cancelled through its cancel token."""


class LibraryInUseError(LibraryError):
    """Another process writes to this library; this one may only read it (or must wait)."""


class WorkerDiedError(EngineError):
    """The child process that indexes for the window stopped unexpectedly (`exit`: how, in words)."""

    def __init__(self, message: str, exit: str = "it stopped unexpectedly"):
        super().__init__(message)
        self.exit = exit


class ExportError(EngineError):
    """An answer could not be exported for an expert (engine/export/): no answer, or the file
    cannot be written."""
