-- Wireshark/tshark dissector for ccsim's live overlay (docs/live.md, "Wire format"):
-- the VNet header, RDP segments (crate ccsim::rdp's format) and ACC controls and filter
-- requests with their MAC. The datagrams are found by their magic ("CV", version 1) on any
-- UDP port, since a live run's ports are chosen free.
--
--   tshark -X lua_script:scripts/wireshark/ccsim_live.lua -r C.pcap -V
--   tshark -X lua_script:scripts/wireshark/ccsim_live.lua -r C.pcap -T fields -e ccsim.type -e acc.cwnd

local vnet = Proto("ccsim", "ccsim live overlay (VNet)")
local acc = Proto("acc", "ACC control / filter request")

local types = { [1] = "RDP segment", [2] = "ACC control", [3] = "ACC filter request", [4] = "UDP source datagram" }

local f = vnet.fields
f.magic = ProtoField.string("ccsim.magic", "Magic")
f.version = ProtoField.uint8("ccsim.version", "Version")
f.type = ProtoField.uint8("ccsim.type", "Type", base.DEC, types)
f.src = ProtoField.ipv4("ccsim.src", "Source (virtual)")
f.dst = ProtoField.ipv4("ccsim.dst", "Destination (virtual)")
f.ttl = ProtoField.uint8("ccsim.ttl", "TTL")
f.len = ProtoField.uint16("ccsim.len", "Body length")

local a = acc.fields
a.csrc = ProtoField.ipv4("acc.conn.src", "Connection source")
a.cdst = ProtoField.ipv4("acc.conn.dst", "Connection destination")
a.sport = ProtoField.uint16("acc.conn.sport", "Connection source port")
a.dport = ProtoField.uint16("acc.conn.dport", "Connection destination port")
a.nonce = ProtoField.uint64("acc.nonce", "Nonce")
a.seq = ProtoField.uint32("acc.seq", "Dropped segment")
a.cwnd = ProtoField.uint32("acc.cwnd", "New cwnd (packets)")
a.ssthresh = ProtoField.uint32("acc.ssthresh", "New ssthresh (packets)")
a.srtt = ProtoField.uint32("acc.srtt_us", "srtt (us)")
a.slow_start = ProtoField.bool("acc.slow_start", "Slow start", 8, nil, 0x01)
a.carried = ProtoField.uint32("acc.carried", "Carried cwnd (packets)")
a.remaining = ProtoField.uint32("acc.remaining", "Segments to filter")
a.lifetime = ProtoField.uint32("acc.lifetime_us", "Filter lifetime (us)")
a.carried_ss = ProtoField.bool("acc.carried_slow_start", "Carried slow start", 8, nil, 0x01)
a.new_ss = ProtoField.bool("acc.new_slow_start", "New slow start", 8, nil, 0x02)
a.mac = ProtoField.bytes("acc.mac", "MAC (HMAC-SHA-256-128)")

-- RDP (RFC 1151 header, ccsim's ACC extension; layout in crates/ccsim/src/rdp/wire.rs).
local rdp = Proto("ccsimrdp", "RDP (ccsim)")
local r = rdp.fields
r.flags = ProtoField.uint8("rdp.flags", "Flags", base.HEX)
r.syn = ProtoField.bool("rdp.flags.syn", "SYN", 8, nil, 0x80)
r.ack_f = ProtoField.bool("rdp.flags.ack", "ACK", 8, nil, 0x40)
r.eak = ProtoField.bool("rdp.flags.eack", "EACK", 8, nil, 0x20)
r.rst = ProtoField.bool("rdp.flags.rst", "RST", 8, nil, 0x10)
r.nul = ProtoField.bool("rdp.flags.nul", "NUL", 8, nil, 0x08)
r.accf = ProtoField.bool("rdp.flags.acc", "ACC state follows", 8, nil, 0x04)
r.version = ProtoField.uint8("rdp.version", "Version", base.DEC, nil, 0x03)
r.hlen = ProtoField.uint8("rdp.hlen", "Header length (2-octet units)")
r.sport = ProtoField.uint16("rdp.sport", "Source port")
r.dport = ProtoField.uint16("rdp.dport", "Destination port")
r.dlen = ProtoField.uint16("rdp.dlen", "Data length")
r.seq = ProtoField.uint32("rdp.seq", "Sequence number")
r.ack = ProtoField.uint32("rdp.ack", "Acknowledgement number")
r.checksum = ProtoField.uint16("rdp.checksum", "Checksum", base.HEX)
r.max_out = ProtoField.uint16("rdp.syn.max_outstanding", "Max. outstanding segments")
r.max_seg = ProtoField.uint16("rdp.syn.max_segment", "Max. segment size")
r.options = ProtoField.uint16("rdp.syn.options", "Options", base.HEX)
r.cwnd = ProtoField.uint32("rdp.acc.cwnd", "cwnd (packets)")
r.ssthresh = ProtoField.uint32("rdp.acc.ssthresh", "ssthresh (packets)")
r.srtt = ProtoField.uint32("rdp.acc.srtt_us", "srtt (us)")
r.slow_start = ProtoField.bool("rdp.acc.slow_start", "Slow start", 8, nil, 0x01)
r.eack = ProtoField.uint32("rdp.eack", "EACK")
r.data = ProtoField.bytes("rdp.data", "Data")

function rdp_dissect(b, pinfo, root)
    if b:len() < 18 then
        return "(short)"
    end
    local t = root:add(rdp, b())
    local fl = b(0, 1):uint()
    local ft = t:add(r.flags, b(0, 1))
    for _, x in ipairs({ r.syn, r.ack_f, r.eak, r.rst, r.nul, r.accf, r.version }) do
        ft:add(x, b(0, 1))
    end
    t:add(r.hlen, b(1, 1))
    t:add(r.sport, b(2, 2))
    t:add(r.dport, b(4, 2))
    t:add(r.dlen, b(6, 2))
    t:add(r.seq, b(8, 4))
    t:add(r.ack, b(12, 4))
    t:add(r.checksum, b(16, 2))
    local hlen = math.min(b(1, 1):uint() * 2, b:len())
    local at = 18
    local names = {}
    for bit, name in pairs({ [0x80] = "SYN", [0x40] = "ACK", [0x20] = "EACK", [0x10] = "RST", [0x08] = "NUL" }) do
        if bit32.band(fl, bit) ~= 0 then
            names[#names + 1] = name
        end
    end
    table.sort(names)
    local info = string.format("%d -> %d [%s] seq=%d ack=%d len=%d", b(2, 2):uint(), b(4, 2):uint(), table.concat(names, ","), b(8, 4):uint(), b(12, 4):uint(), b(6, 2):uint())
    if bit32.band(fl, 0x80) ~= 0 and at + 6 <= hlen then
        t:add(r.max_out, b(at, 2))
        t:add(r.max_seg, b(at + 2, 2))
        t:add(r.options, b(at + 4, 2))
        at = at + 6
    end
    if bit32.band(fl, 0x04) ~= 0 and at + 16 <= hlen then
        t:add(r.cwnd, b(at, 4))
        t:add(r.ssthresh, b(at + 4, 4))
        t:add(r.srtt, b(at + 8, 4))
        t:add(r.slow_start, b(at + 12, 1))
        info = info .. string.format(" cwnd=%d ssthresh=%d", b(at, 4):uint(), b(at + 4, 4):uint())
        at = at + 16
    end
    if bit32.band(fl, 0x20) ~= 0 then
        while at + 4 <= hlen do
            t:add(r.eack, b(at, 4))
            at = at + 4
        end
    end
    if hlen < b:len() then
        t:add(r.data, b(hlen))
    end
    return info
end

local function conn(tree, buf, at)
    tree:add(a.csrc, buf(at, 4))
    tree:add(a.cdst, buf(at + 4, 4))
    tree:add(a.sport, buf(at + 8, 2))
    tree:add(a.dport, buf(at + 10, 2))
    tree:add(a.nonce, buf(at + 12, 8))
end

local function dissect(buf, pinfo, root)
    if buf:len() < 16 or buf(0, 2):string() ~= "CV" or buf(2, 1):uint() ~= 1 then
        return false
    end
    local ty = buf(3, 1):uint()
    if types[ty] == nil then
        return false
    end
    pinfo.cols.protocol = "ccsim"
    local t = root:add(vnet, buf(0, 16))
    t:add(f.magic, buf(0, 2))
    t:add(f.version, buf(2, 1))
    t:add(f.type, buf(3, 1))
    t:add(f.src, buf(4, 4))
    t:add(f.dst, buf(8, 4))
    t:add(f.ttl, buf(12, 1))
    t:add(f.len, buf(14, 2))
    local body = buf(16):tvb()
    local info = types[ty] .. " " .. tostring(buf(4, 4):ipv4()) .. " -> " .. tostring(buf(8, 4):ipv4())
    if ty == 1 then
        pinfo.cols.protocol = "ccsim/RDP"
        local len = buf(14, 2):uint()
        if buf(13, 1):uint() % 2 == 1 and buf:len() >= 16 + len + 16 then
            -- a run with a key: the segment's MAC follows it
            body = buf(16, len):tvb()
            root:add(a.mac, buf(16 + len, 16))
        end
        info = info .. " " .. rdp_dissect(body, pinfo, root)
    elseif ty == 2 and buf:len() >= 72 then
        pinfo.cols.protocol = "ccsim/ACC"
        local c = root:add(acc, buf(16))
        conn(c, buf, 16)
        c:add(a.seq, buf(36, 4))
        c:add(a.cwnd, buf(40, 4))
        c:add(a.ssthresh, buf(44, 4))
        c:add(a.srtt, buf(48, 4))
        c:add(a.slow_start, buf(52, 1))
        c:add(a.mac, buf(56, 16))
        info = info .. string.format(" cwnd=%d ssthresh=%d", buf(40, 4):uint(), buf(44, 4):uint())
    elseif ty == 3 and buf:len() >= 76 then
        pinfo.cols.protocol = "ccsim/ACC"
        local c = root:add(acc, buf(16))
        conn(c, buf, 16)
        c:add(a.carried, buf(36, 4))
        c:add(a.remaining, buf(40, 4))
        c:add(a.lifetime, buf(44, 4))
        c:add(a.cwnd, buf(48, 4))
        c:add(a.ssthresh, buf(52, 4))
        c:add(a.carried_ss, buf(56, 1))
        c:add(a.new_ss, buf(56, 1))
        c:add(a.mac, buf(60, 16))
        info = info .. string.format(" filter %d of carried %d", buf(40, 4):uint(), buf(36, 4):uint())
    elseif ty == 4 and buf:len() >= 24 then
        pinfo.cols.protocol = "ccsim/UDP"
        info = info .. string.format(" %d -> %d seq=%d len=%d", buf(16, 2):uint(), buf(18, 2):uint(), buf(20, 4):uint(), buf(14, 2):uint() - 8)
    end
    pinfo.cols.info = info
    return true
end

vnet:register_heuristic("udp", dissect)
