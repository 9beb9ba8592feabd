#!/bin/sh
# Makes the bare repositories GIT_REPOS names (default: repo), then serves every one under /srv/git.
set -eu
for name in ${GIT_REPOS:-repo}; do
  [ -d "/srv/git/$name.git" ] || git init --quiet --bare "/srv/git/$name.git"
done
exec git daemon --reuseaddr --export-all --enable=receive-pack --base-path=/srv/git /srv/git
