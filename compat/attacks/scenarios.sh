# compat/attacks/scenarios.sh: one client attacking a real gregor while a
# well-behaved one produces and consumes (sourced by compat/run.sh). Each
# scenario's script calls compat/attacks/harness.py's run(), which checks
# the broker's peak RSS and the well-behaved client's worst latency against
# the bounds the scenario states, that nothing acknowledged was lost, and
# that the broker lives; it prints the figures on a line "attack NAME: ...".

attack_py() { # SCRIPT ARGS...: runs an attack script against $BROKER_PID
    GR_BROKER_PID=$BROKER_PID timeout "${ATTACK_LIMIT:-100}" \
        $PY "$COMPAT_SRC/attacks/$@"
}

# the well-behaved client alone for 3 s: the figures to read the attacks
# against, and the harness's own check
s_attack_baseline() {
    start_broker || return 1
    attack_py harness.py baseline 3
}

SCENARIOS+=(attack_baseline)
