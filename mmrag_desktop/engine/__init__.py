"""The whole product minus the window: Qt-free. Front ends use the facade, `library.Library`.

Layers (imports point down only; import-linter contracts in pyproject.toml hold it):
    library                      facade and composition root
    answer                       answering (uses only the facade's public methods)
    ingest, background, search   services: get repositories and models in their constructors
    models, parse, figures       model wrappers, file parsers, figure image work
    store                        the disk: one repository per table group
"""
