# The shared git remote for runs over compose: git daemon serving bare repositories under
# /srv/git, fetch and push, on port 9418. GIT_REPOS names the repositories it makes at start.
FROM alpine:3.20
RUN apk add --no-cache git git-daemon
COPY docker/git-server.sh /usr/local/bin/git-server
RUN chmod +x /usr/local/bin/git-server
EXPOSE 9418
ENTRYPOINT ["/usr/local/bin/git-server"]
