# Sourced by bench/bench.sh and bench/trace.sh (with $root set to the repository).
# lua_tarball: Lua's upstream tarball from Debian's current lua5.4 source package (stable).
lua_tarball() {
	local d=$root/build/bench/apt f
	f=$(ls "$d"/src/lua5.4_*.orig.tar.gz 2>/dev/null | tail -n1)
	[ -n "$f" ] && { echo "$f"; return 0; }
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/src"
	echo "deb-src http://deb.debian.org/debian ${BENCH_LUA_SUITE:-bookworm} main" >"$d/sources.list"
	local A=(-o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=-
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache"
		-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	apt-get "${A[@]}" update -qq >&2 &&
		(cd "$d/src" && apt-get "${A[@]}" source --download-only lua5.4 >&2) || return 1
	f=$(ls "$d"/src/lua5.4_*.orig.tar.gz 2>/dev/null | tail -n1)
	[ -n "$f" ] && echo "$f"
}
