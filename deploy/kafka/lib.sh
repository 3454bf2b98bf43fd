# shellcheck shell=bash
# Shared by deploy/kafka/start and deploy/kafka/node (sourced, not run): the toolchain and the
# broker jars. The caller defines log() and die() and sets HERE (this directory).

# Installs openjdk-17-jre-headless and maven with apt-get only when java/mvn are missing.
ensure_toolchain() {
    if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then
        return 0
    fi
    log "installing openjdk-17-jre-headless and maven with apt-get"
    local sudo=""
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "java/mvn missing and not root (no sudo)"
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q >&2
    $sudo apt-get install -y -q openjdk-17-jre-headless maven >&2
}

# Resolves the jars (pom.xml -> libs/) only when libs/ is missing or incomplete; sets LIBS, CP
# (the classpath) and LOG4J (the -D flag naming log4j.properties).
# libs/.complete records the pom's hash and the jar list of the last successful resolve.
ensure_jars() {
    LIBS="$HERE/libs"
    local pom_hash jar complete=1
    pom_hash="$(sha256sum "$HERE/pom.xml" | cut -d' ' -f1)"
    if [[ -f "$LIBS/.complete" && "$(head -n1 "$LIBS/.complete")" == "$pom_hash" ]]; then
        while IFS= read -r jar; do
            [[ -s "$LIBS/$jar" ]] || complete=0
        done < <(tail -n +2 "$LIBS/.complete")
    else
        complete=0
    fi
    if [[ "$complete" != 1 ]]; then
        log "resolving jars from pom.xml into $LIBS"
        rm -rf "$LIBS"
        # (Debian's maven 3.8.7 prints stray ESC[0m even with -B; strip them.)
        mvn -q -B -f "$HERE/pom.xml" dependency:copy-dependencies 2>&1 </dev/null \
            | sed 's/\x1b\[0m//g' >&2 \
            || die "mvn dependency:copy-dependencies failed"
        ls "$LIBS"/kafka_2.13-*.jar "$LIBS"/slf4j-reload4j-*.jar >/dev/null 2>&1 \
            || die "jars missing in $LIBS after mvn"
        { echo "$pom_hash"; (cd "$LIBS" && ls -1 -- *.jar); } >"$LIBS/.complete"
    fi
    CP="$LIBS/*"
    LOG4J="-Dlog4j.configuration=file:$HERE/log4j.properties"
}
