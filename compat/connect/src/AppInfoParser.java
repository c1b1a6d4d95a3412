// compat/connect: connect-file 4.3.1 (the newest the registry serves; it
// has no 4.4.0) asks org.apache.kafka.common.utils.AppInfoParser for its
// version, a class kafka-clients 4.4.0 moved to common.utils.internals.
// This is the one reference of connect-file that 4.4.0 lacks (its other
// references, to connect-api and common.config, are all there), so the
// 4.3.1 connectors run in the 4.4.0 runtime with it; a connect-file 4.4.0
// would call the moved class itself.
package org.apache.kafka.common.utils;

public final class AppInfoParser {
    private AppInfoParser() {
    }

    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }

    public static String getCommitId() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
    }
}
