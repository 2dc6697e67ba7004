-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- Wireshark and tshark dissector for the MTG header (struct mtg_hdr in
-- kmod/uapi/mtg.h; Documentation/abi.rst, "The MTG header"; the fields and
-- filters in Documentation/wireshark.rst).
--
-- Install: copy to ~/.local/lib/wireshark/plugins/ (or load it once with
-- tshark -X lua_script:mtg.lua). It takes any UDP payload that starts with
-- the magic "MTG1" and holds a whole header (heuristic "mtg_udp"), and
-- every UDP payload on the ports of the preference mtg.udp_ports.
--
-- Verified here, whatever the UDP dissector's own preferences: the header's
-- CRC32C (mtg.crc.status) and the UDP checksum over the pseudo-header
-- (mtg.udp_checksum.status), each with an expert item when wrong.
--
-- Wireshark 4.x, Lua 5.2 (bit32). tests/host/test_wireshark.py checks every
-- field against scripts/mtgwitness/wire.py, frame by frame.

local MAGIC = 0x4d544731        -- "MTG1"
local VERSION = 1
local HDR_LEN = 88
local CRC_LEN = 44              -- bytes the CRC covers
local IPPROTO_UDP = 17

local F_CTRL = 0x01            -- MTG_HDR_F_CTRL

local mtg = Proto("mtg", "MTG traffic generator")

-- Checksum status, as Wireshark's own dissectors give it (proto.h's
-- proto_checksum_enum_e), so `mtg.crc.status == "Bad"` reads as
-- `udp.checksum.status == "Bad"` does.
local ST_BAD, ST_GOOD, ST_UNVERIFIED, ST_NOT_PRESENT, ST_ILLEGAL =
	0, 1, 2, 3, 4
local status_names = {
	[ST_BAD] = "Bad", [ST_GOOD] = "Good",
	[ST_UNVERIFIED] = "Unverified", [ST_NOT_PRESENT] = "Not present",
	[ST_ILLEGAL] = "Illegal",
}

local patt_names = {
	[0] = "FIXED", [1] = "RANDOM", [2] = "INCR", [3] = "CTRL",
}

local pf = {
	magic = ProtoField.uint32("mtg.magic", "Magic", base.HEX),
	version = ProtoField.uint8("mtg.version", "Version", base.DEC),
	flags = ProtoField.uint8("mtg.flags", "Flags", base.HEX),
	flag_ctrl = ProtoField.bool("mtg.flags.ctrl", "Control message", 8,
				    nil, 0x01),
	flag_keep_payload = ProtoField.bool("mtg.flags.keep_payload",
					    "Keep the payload", 8, nil, 0x02),
	flag_keep_bits = ProtoField.bool("mtg.flags.keep_bits",
					 "Keep the wrong bits' places", 8,
					 nil, 0x04),
	flag_reserved = ProtoField.uint8("mtg.flags.reserved", "Reserved",
					 base.HEX, nil, 0xf8),
	hdr_len = ProtoField.uint16("mtg.hdr_len", "Header length", base.DEC),
	run = ProtoField.uint32("mtg.run", "Run", base.DEC),
	tg = ProtoField.uint32("mtg.tg", "TG", base.DEC),
	seq = ProtoField.uint64("mtg.seq", "Sequence number", base.DEC),
	sched = ProtoField.uint64("mtg.sched", "Scheduled departure (ns, TAI)",
				  base.DEC),
	nut = ProtoField.bytes("mtg.nut", "NUT bytes"),
	patt_kind = ProtoField.uint8("mtg.patt.kind", "Pattern", base.DEC,
				     patt_names),
	patt_value = ProtoField.uint8("mtg.patt.value", "Pattern value",
				      base.DEC),
	patt_seed = ProtoField.uint32("mtg.patt.seed", "Pattern seed",
				      base.HEX),
	crc = ProtoField.uint32("mtg.crc", "Header CRC32C", base.HEX),
	crc_computed = ProtoField.uint32("mtg.crc.computed",
					 "Computed CRC32C", base.HEX),
	crc_status = ProtoField.uint8("mtg.crc.status", "Header CRC status",
				      base.DEC, status_names),
	tx = ProtoField.uint64("mtg.tx", "TX stamp (ns, TAI)", base.DEC),
	late = ProtoField.int64("mtg.late", "Lateness (TX - scheduled, ns)",
				base.DEC),
	tp = {},
	udp_computed = ProtoField.uint16("mtg.udp_checksum.computed",
					 "UDP checksum it must carry",
					 base.HEX),
	udp_status = ProtoField.uint8("mtg.udp_checksum.status",
				      "UDP checksum status", base.DEC,
				      status_names),
	ctrl_data = ProtoField.bytes("mtg.ctrl.data", "Control data"),
	payload = ProtoField.bytes("mtg.payload", "Payload"),
}
for i = 0, 3 do
	pf.tp[i] = ProtoField.uint64("mtg.tp" .. i, "Test point " .. i ..
				     " stamp (ns, TAI)", base.DEC)
end

local fields = {}
for k, v in pairs(pf) do
	if k == "tp" then
		for i = 0, 3 do fields[#fields + 1] = v[i] end
	else
		fields[#fields + 1] = v
	end
end
mtg.fields = fields

local ex = {
	crc_bad = ProtoExpert.new("mtg.crc.bad", "Bad MTG header CRC32C: "
				  .. "run, TG and sequence number cannot be "
				  .. "trusted", expert.group.CHECKSUM,
				  expert.severity.ERROR),
	udp_bad = ProtoExpert.new("mtg.udp_checksum.bad", "Bad UDP checksum",
				  expert.group.CHECKSUM,
				  expert.severity.ERROR),
	udp_absent = ProtoExpert.new("mtg.udp_checksum.absent",
				     "No UDP checksum (mtg always sends one)",
				     expert.group.CHECKSUM,
				     expert.severity.WARN),
	bad_magic = ProtoExpert.new("mtg.magic.bad", "Not the MTG magic",
				    expert.group.MALFORMED,
				    expert.severity.ERROR),
	short = ProtoExpert.new("mtg.short", "Shorter than an MTG header",
				expert.group.MALFORMED,
				expert.severity.ERROR),
	version = ProtoExpert.new("mtg.version.unknown",
				  "Header version or length this dissector "
				  .. "does not know", expert.group.PROTOCOL,
				  expert.severity.WARN),
	ctrl = ProtoExpert.new("mtg.ctrl", "Control message",
			       expert.group.SEQUENCE, expert.severity.CHAT),
}
mtg.experts = { ex.crc_bad, ex.udp_bad, ex.udp_absent, ex.bad_magic,
		ex.short, ex.version, ex.ctrl }

mtg.prefs.udp_ports = Pref.range("UDP ports", "",
	"UDP ports whose every payload is MTG, even without the magic "
	.. "(frames elsewhere are found by their magic)", 65535)

-- The UDP header and the addresses of the datagram we are in: the last
-- of each field is the innermost layer's.
local f_ip_src = Field.new("ip.src")
local f_ip_dst = Field.new("ip.dst")
local f_ip6_src = Field.new("ipv6.src")
local f_ip6_dst = Field.new("ipv6.dst")
local f_udp_sport = Field.new("udp.srcport")
local f_udp_dport = Field.new("udp.dstport")
local f_udp_len = Field.new("udp.length")
local f_udp_csum = Field.new("udp.checksum")

local function last(field)
	local all = { field() }
	return all[#all]
end

-- CRC32C (Castagnoli, reflected, initial value and final xor 0xffffffff),
-- as kmod/mtg_wire.c and wire.crc32c compute it.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) == 1 then
			c = bit32.bxor(bit32.rshift(c, 1), 0x82f63b78)
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_table[i] = c
end

local function crc32c(s)
	local crc = 0xffffffff
	for i = 1, #s do
		local idx = bit32.band(bit32.bxor(crc, s:byte(i)), 0xff)
		crc = bit32.bxor(crc_table[idx], bit32.rshift(crc, 8))
	end
	return bit32.bxor(crc, 0xffffffff)
end

-- The one's complement sum (RFC 1071) of the 16-bit words of s, unfolded.
local function word_sum(s)
	local sum = 0
	local n = #s
	for i = 1, n - 1, 2 do
		local a, b = s:byte(i, i + 1)
		sum = sum + a * 256 + b
	end
	if n % 2 == 1 then
		sum = sum + s:byte(n) * 256
	end
	return sum
end

local function fold(sum)
	while sum > 0xffff do
		sum = sum % 0x10000 + math.floor(sum / 0x10000)
	end
	return sum
end

-- The UDP checksum of the datagram whose payload is tvb: its status and
-- the value the field must carry (nil when it cannot be computed).
local function udp_checksum(tvb, pinfo)
	local csum_fi, len_fi = last(f_udp_csum), last(f_udp_len)
	local sport, dport = last(f_udp_sport), last(f_udp_dport)
	if not (csum_fi and len_fi and sport and dport) then
		return ST_UNVERIFIED
	end
	local src, dst, v6
	local s4, d4 = last(f_ip_src), last(f_ip_dst)
	local s6, d6 = last(f_ip6_src), last(f_ip6_dst)
	if s4 and d4 and s4.value == pinfo.net_src and
	   d4.value == pinfo.net_dst then
		src, dst, v6 = s4, d4, false
	elseif s6 and d6 and s6.value == pinfo.net_src and
	       d6.value == pinfo.net_dst then
		src, dst, v6 = s6, d6, true
	else
		return ST_UNVERIFIED
	end
	local csum, udp_len = csum_fi.value, len_fi.value
	if csum == 0 and not v6 then
		return ST_NOT_PRESENT   -- optional over IPv4 only
	end
	local n = tvb:reported_len()
	if tvb:captured_len() < n or udp_len ~= n + 8 then
		return ST_UNVERIFIED
	end
	local sum = word_sum(src.range:raw()) + word_sum(dst.range:raw()) +
		IPPROTO_UDP + udp_len +
		sport.value + dport.value + udp_len + word_sum(tvb:raw(0, n))
	local want = 0xffff - fold(sum)
	if want == 0 then
		want = 0xffff
	end
	if csum == 0 then
		return ST_ILLEGAL, want         -- zero over IPv6 (RFC 8200)
	end
	return fold(sum + csum) == 0xffff and ST_GOOD or ST_BAD, want
end

-- A TAI stamp in ns (UInt64) as a date; TAI is shown without leap seconds.
local function tai_text(ns)
	if ns == UInt64(0) then
		return "not stamped"
	end
	local sec = (ns / 1000000000):tonumber()
	local frac = (ns % 1000000000):tonumber()
	return string.format("%s.%09d TAI", os.date("!%Y-%m-%d %H:%M:%S", sec),
			     frac)
end

local function printable(s)
	return not s:find("[^\32-\126]")
end

-- The capture kept less than the datagram (tcpdump -s): an item past the
-- bytes kept throws Wireshark's ReportedBoundsError, as in its own
-- dissectors, and the frame is marked "packet size limited during
-- capture" (_ws.short).
local function cut_short(t, tvb)
	t:add(pf.payload, tvb(tvb:captured_len() + 1))
end

-- The flag bits (MTG_HDR_F_*): mask, name after mtg.flags' value, field.
local flag_bits = {
	{ mask = 0x01, name = "ctrl", field = pf.flag_ctrl },
	{ mask = 0x02, name = "keep_payload", field = pf.flag_keep_payload },
	{ mask = 0x04, name = "keep_bits", field = pf.flag_keep_bits },
}

-- A field whose value this version of the header fixes: flagged if not.
local function add_fixed(t, tvb, field, off, len, want)
	local item = t:add(field, tvb(off, len))
	if tvb(off, len):uint() ~= want then
		item:add_proto_expert_info(ex.version)
	end
end

local function dissect(tvb, pinfo, tree)
	local n = tvb:reported_len()
	pinfo.cols.protocol = "MTG"
	local t = tree:add(mtg, tvb())
	if n < HDR_LEN then
		t:add_proto_expert_info(ex.short, string.format(
			"Shorter than an MTG header: %d of %d bytes", n,
			HDR_LEN))
		pinfo.cols.info = "MTG: short"
		return n
	end
	local cap = tvb:captured_len()
	if cap < 4 then
		pinfo.cols.info = "MTG: cut short"
		cut_short(t, tvb)
	end
	local magic = tvb(0, 4):uint()
	local mi = t:add(pf.magic, tvb(0, 4))
	if magic ~= MAGIC then
		mi:add_proto_expert_info(ex.bad_magic)
	else
		mi:append_text(' ("MTG1")')
	end
	-- A capture cut short: the fields whose bytes are there.
	local function has(off, len) return off + len <= cap end
	if has(4, 1) then add_fixed(t, tvb, pf.version, 4, 1, VERSION) end
	local flags = has(5, 1) and tvb(5, 1):uint() or 0
	if has(5, 1) then
		local fi = t:add(pf.flags, tvb(5, 1))
		local names = {}
		for _, f in ipairs(flag_bits) do
			if bit32.band(flags, f.mask) ~= 0 then
				names[#names + 1] = f.name
			end
			fi:add(f.field, tvb(5, 1))
		end
		if #names > 0 then
			fi:append_text(" (" .. table.concat(names, ", ") .. ")")
		end
		fi:add(pf.flag_reserved, tvb(5, 1))
	end
	if has(6, 2) then add_fixed(t, tvb, pf.hdr_len, 6, 2, HDR_LEN) end
	if has(8, 4) then
		t:add(pf.run, tvb(8, 4)):append_text(string.format(
			" (0x%08x)", tvb(8, 4):uint()))
	end
	if has(12, 4) then t:add(pf.tg, tvb(12, 4)) end
	if has(16, 8) then t:add(pf.seq, tvb(16, 8)) end
	if has(24, 8) then
		t:add(pf.sched, tvb(24, 8)):append_text(
			" (" .. tai_text(tvb(24, 8):uint64()) .. ")")
	end
	if has(32, 6) then t:add(pf.nut, tvb(32, 6)) end
	if has(38, 1) then t:add(pf.patt_kind, tvb(38, 1)) end
	if has(39, 1) then t:add(pf.patt_value, tvb(39, 1)) end
	if has(40, 4) then t:add(pf.patt_seed, tvb(40, 4)) end

	local crc_status = ST_UNVERIFIED
	if has(44, 4) then
		local crc = tvb(44, 4):uint()
		local want = crc32c(tvb:raw(0, CRC_LEN))
		crc_status = crc == want and ST_GOOD or ST_BAD
		local ci = t:add(pf.crc, tvb(44, 4))
		ci:append_text(crc_status == ST_GOOD and " [correct]" or
			       string.format(" [incorrect, should be 0x%08x]",
					     want))
		ci:add(pf.crc_computed, tvb(44, 4), want):set_generated()
		ci:add(pf.crc_status, tvb(44, 4), crc_status):set_generated()
		if crc_status == ST_BAD then
			ci:add_proto_expert_info(ex.crc_bad)
		end
	else
		t:add(pf.crc_status, crc_status):set_generated()
	end
	if has(48, 8) then
		local tx = tvb(48, 8):uint64()
		t:add(pf.tx, tvb(48, 8)):append_text(" (" .. tai_text(tx) .. ")")
		if tx ~= UInt64(0) then
			t:add(pf.late, tvb(48, 8),
			      tvb(48, 8):int64() - tvb(24, 8):int64())
				:set_generated()
		end
	end
	for i = 0, 3 do
		local off = 56 + 8 * i
		if has(off, 8) then
			t:add(pf.tp[i], tvb(off, 8)):append_text(
				" (" .. tai_text(tvb(off, 8):uint64()) .. ")")
		end
	end

	local udp_status, udp_want = udp_checksum(tvb, pinfo)
	if udp_want then
		t:add(pf.udp_computed, udp_want):set_generated()
	end
	local ui = t:add(pf.udp_status, udp_status):set_generated()
	if udp_status == ST_BAD then
		ui:add_proto_expert_info(ex.udp_bad)
	elseif udp_status == ST_ILLEGAL then
		ui:add_proto_expert_info(ex.udp_bad,
					 "Zero UDP checksum over IPv6")
	elseif udp_status == ST_NOT_PRESENT then
		ui:add_proto_expert_info(ex.udp_absent)
	end

	local ctrl = bit32.band(flags, F_CTRL) ~= 0
	local info = string.format("%sTG %s seq %s run %s",
				   ctrl and "Control " or "",
				   has(12, 4) and tvb(12, 4):uint() or "?",
				   has(16, 8) and tostring(tvb(16, 8):uint64())
					or "?",
				   has(8, 4) and tvb(8, 4):uint() or "?")
	local text = ctrl and n > HDR_LEN and cap == n and
		tvb:raw(HDR_LEN, n - HDR_LEN)
	if text and printable(text) then
		info = info .. ' "' .. text .. '"'
	end
	if magic ~= MAGIC then
		info = info .. " [bad magic]"
	end
	if crc_status == ST_BAD then
		info = info .. " [bad header CRC]"
	end
	if udp_status == ST_BAD or udp_status == ST_ILLEGAL then
		info = info .. " [bad UDP checksum]"
	end
	pinfo.cols.info = info
	t:append_text(", " .. info)
	if ctrl then
		t:add_proto_expert_info(ex.ctrl)
	end
	if cap > HDR_LEN then
		local di = t:add(ctrl and pf.ctrl_data or pf.payload, tvb(HDR_LEN))
		if text and printable(text) then
			di:append_text(' "' .. text .. '"')
		end
	end
	if cap < n then
		cut_short(t, tvb)
	end
	return n
end

function mtg.dissector(tvb, pinfo, tree)
	return dissect(tvb, pinfo, tree)
end

local function heuristic(tvb, pinfo, tree)
	if tvb:captured_len() < 4 or tvb:reported_len() < HDR_LEN or
	   tvb(0, 4):uint() ~= MAGIC then
		return false
	end
	dissect(tvb, pinfo, tree)
	return true
end

mtg:register_heuristic("udp", heuristic)

local udp_port = DissectorTable.get("udp.port")
udp_port:add_for_decode_as(mtg)
local ports = ""

function mtg.prefs_changed()
	local want = tostring(mtg.prefs.udp_ports)
	if want == ports then
		return
	end
	if ports ~= "" then
		udp_port:remove(ports, mtg)
	end
	if want ~= "" then
		udp_port:add(want, mtg)
	end
	ports = want
end
