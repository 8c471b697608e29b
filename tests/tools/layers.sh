#!/usr/bin/env bash
# Layering and include circles of the C sources (tests/tools/layers.mjs).
exec node "$(dirname "$0")/layers.mjs"
