#!/bin/sh
# compat/diff/install.sh: the differential tests (tests/diff/) need the
# pinned real Kafka 4.4.0 that tests/kafka/install.sh installs into
# $GR_CLIENTS/kafka/libs, and kafka-python 3.0.12 in the venv that
# compat/python/install.sh makes (install-deps.sh runs both).
exec sh "$(dirname "$0")/../../tests/kafka/install.sh"
