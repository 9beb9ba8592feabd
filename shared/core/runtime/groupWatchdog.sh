# orca's process-group watchdog (shared/runtime/groupWatchdog.ts). Its parent writes "+PGID" on
# stdin when it starts a process group and "-PGID" once that group is gone. When the parent's end
# of the pipe closes (it exited, or was killed with SIGKILL and ran no handler), the groups still
# listed get SIGTERM, then SIGKILL two seconds later: nothing a dead worker started runs on.
trap '' INT TERM HUP
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups+="${line#+} " ;;
    -*) groups=${groups// ${line#-} / } ;;
  esac
done
left=''
for pgid in $groups; do
  if kill -TERM -- "-$pgid" 2>/dev/null; then
    kill -CONT -- "-$pgid" 2>/dev/null
    left+="$pgid "
  fi
done
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  [ -n "$left" ] || exit 0
  alive=''
  for pgid in $left; do
    if kill -0 -- "-$pgid" 2>/dev/null; then alive+="$pgid "; fi
  done
  left=$alive
  [ -n "$left" ] && sleep 0.1
done
for pgid in $left; do kill -KILL -- "-$pgid" 2>/dev/null; done
exit 0
