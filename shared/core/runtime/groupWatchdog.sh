# orca's process-group watchdog (shared/runtime/groupWatchdog.ts). Its parent writes "+PGID" on
# stdin when it starts a process group and "-PGID" once that group is gone. When the parent's end
# of the pipe closes (it exited, or was killed with SIGKILL and ran no handler), the groups still
# listed get SIGTERM, then SIGKILL two seconds later: nothing a dead worker started runs on.
# "C<folder>" names the parent's folder of agent cgroups: at the end everything in it gets SIGKILL
# (cgroup.kill), what left its group with setsid included, and the emptied folders are removed.
trap '' INT TERM HUP
groups=' '
cgroups=''
while IFS= read -r line; do
  case $line in
    C*) cgroups=${line#C} ;;
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
  [ -n "$left" ] || break
  alive=''
  for pgid in $left; do
    if kill -0 -- "-$pgid" 2>/dev/null; then alive+="$pgid "; fi
  done
  left=$alive
  [ -n "$left" ] && sleep 0.1
done
for pgid in $left; do kill -KILL -- "-$pgid" 2>/dev/null; done
if [ -n "$cgroups" ] && [ -e "$cgroups/cgroup.kill" ]; then
  echo 1 >"$cgroups/cgroup.kill" 2>/dev/null
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    grep -q '^populated 0' "$cgroups/cgroup.events" 2>/dev/null && break
    sleep 0.1
  done
  # Children first; what is still busy is left to the next worker's sweep (agentCgroup.ts).
  find "$cgroups" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
  rmdir "$cgroups" 2>/dev/null
fi
exit 0
