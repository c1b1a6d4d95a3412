# compat/clients.sh: where the client matrix lives, for install-deps.sh (sh)
# and compat/lib.sh (bash). Each compat/<client>/ directory that has an
# install.sh installs its pinned client from the registries into
# $GR_CLIENTS/<client> (idempotent: quick when it is there); its
# scenarios.sh adds its scenarios to compat/run.sh.
GR_CLIENTS=${GR_CLIENTS:-${XDG_CACHE_HOME:-$HOME/.cache}/gregor-clients}
export GR_CLIENTS
