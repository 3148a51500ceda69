#!/usr/bin/env bash
# The unseen-manuals set (bench/unseen.jsonl): the same as `bash bench/fetch_manuals.sh unseen`.
exec bash "$(dirname "${BASH_SOURCE[0]}")/fetch_manuals.sh" unseen
