"""Work that runs after a document is searchable: figure enrichment (enrich.py), image-model
changes (image_model.py) and re-embedding with another text model (reembed.py)."""
