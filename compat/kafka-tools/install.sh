#!/bin/sh
# compat/kafka-tools/install.sh: Kafka's command-line tools are the jars of
# the pinned real Kafka (tests/kafka/pom.xml, 4.4.0) that tests/kafka/install.sh
# installs into $GR_CLIENTS/kafka/libs; compat/kafka-tools/kt runs them.
exec sh "$(dirname "$0")/../../tests/kafka/install.sh"
