# Helpers shared by the cross-validation scripts (sourced by each of them).
#
# Every script prints its results on stdout as one key=value per line, the keys
# that scripts/validate_ns2.py reads; anything else it prints is ignored. Agents
# and queues keep ns-2.35's defaults except where the scenario states a value
# (SCENARIOS.md); the scripts set those and nothing else.

# usage NAME ARGNAMES: checks argc and sets each named argument in the caller.
proc args_or_usage {script names} {
    global argc argv
    if {$argc != [llength $names]} {
        puts stderr "usage: ns $script [join $names { }]"
        exit 2
    }
    foreach n $names v $argv {
        upvar 1 $n var
        set var $v
    }
}

# Seeds ns-2's default RNG (RED's coin flips, random loss) and returns a new
# RNG for one named purpose, seeded from the run's seed and a fixed offset so
# that the streams are independent of each other and of the number of draws on
# the others. ns-2 takes seed 0 to mean "from the clock", so seeds start at 1.
proc seed_default {seed} {
    global defaultRNG
    if {$seed < 1} {
        puts stderr "SEED must be >= 1"
        exit 2
    }
    $defaultRNG seed $seed
}
proc stream {seed offset} {
    set r [new RNG]
    $r seed [expr {($seed * 1009 + $offset) % 2147483646 + 1}]
    return $r
}
proc uniform_var {rng lo hi} {
    set v [new RandomVariable/Uniform]
    $v use-rng $rng
    $v set min_ $lo
    $v set max_ $hi
    return $v
}

# A queue monitor on the link from n1 to n2 that tells RED's early drops from
# the others. Returns the monitor.
proc monitor_queue {ns n1 n2} {
    set l [$ns link $n1 $n2]
    set q [$l queue]
    set qmon [new QueueMonitor/ED]
    $qmon set-pkts-integrator [new Integrator]
    $l attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qmon
    if {[$q info class] == "Queue/RED"} {
        set ed [new SnoopQueue/EDrop]
        $ed set-monitor $qmon
        $q early-drop-target $ed
        $ed target [$ns set nullAgent_]
    }
    return $qmon
}

# Snapshot of a queue monitor's counters: arrivals, departures, drops, early
# drops, and the time integral of the queue length in packets up to now.
proc queue_counters {ns qmon} {
    set integ [$qmon get-pkts-integrator]
    $integ newpoint [$ns now] [$qmon set pkts_]
    return [list [$qmon set parrivals_] [$qmon set pdepartures_] \
                [$qmon set pdrops_] [$qmon set epdrops_] [$integ set sum_]]
}

# Prints the difference of two snapshots over `span` seconds with key prefix.
proc print_queue {prefix before after span} {
    foreach {a0 d0 x0 e0 s0} $before {a1 d1 x1 e1 s1} $after {}
    set drops [expr {$x1 - $x0}]
    set early [expr {$e1 - $e0}]
    puts "${prefix}arrivals=[expr {$a1 - $a0}]"
    puts "${prefix}departures=[expr {$d1 - $d0}]"
    puts "${prefix}drops=$drops"
    puts "${prefix}drops_early=$early"
    puts "${prefix}drops_forced=[expr {$drops - $early}]"
    puts "${prefix}mean_len_packets=[expr {($s1 - $s0) / $span}]"
}

# A TCP sink's in-order data packets (its bytes_ counts whole packets of
# `wire` bytes; the 40-byte SYN of ns-2's one-way TCP falls away in the
# division).
proc delivered_packets {sink wire} {
    return [expr {[$sink set bytes_] / $wire}]
}

# Snapshot of one TCP connection: in-order data packets delivered to the sink,
# data packets sent (retransmissions and the SYN included), retransmitted
# packets, window reductions (every call of ns-2's slowdown(): fast
# retransmits, timeouts, ECN responses) and retransmission timeouts.
proc tcp_counters {tcp sink wire} {
    return [list [delivered_packets $sink $wire] [$tcp set ndatapack_] \
                [$tcp set nrexmitpack_] [$tcp set ncwndcuts_] [$tcp set nrexmit_]]
}

# Prints, for a list of (tcp sink) pairs, the sums of their counters between
# two snapshots (lists of tcp_counters results, one per pair) with key prefix.
proc print_tcp {prefix before after payload span} {
    set sums {0 0 0 0 0}
    foreach b $before a $after {
        set new {}
        foreach s $sums x0 $b x1 $a { lappend new [expr {$s + $x1 - $x0}] }
        set sums $new
    }
    foreach {delivered sent rexmit cuts timeouts} $sums {}
    puts "${prefix}delivered_packets=$delivered"
    puts "${prefix}goodput_bps=[expr {$delivered * $payload * 8.0 / $span}]"
    puts "${prefix}packets_sent=$sent"
    puts "${prefix}retransmitted_packets=$rexmit"
    puts "${prefix}window_reductions=$cuts"
    puts "${prefix}timeouts=$timeouts"
}

# A sender and a receiver for a dumbbell with routers r1 and r2 (routes by the
# Manual routing module): s -1 Gb/s, 1 ms- r1 and r2 -1 Gb/s, 1 ms- d, each way.
# Returns {s d}.
proc end_pair {ns r1 r2} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $r1 1Gb 1ms DropTail
    $ns duplex-link $r2 $d 1Gb 1ms DropTail
    [$s get-module Manual] add-route-to-adj-node -default $r1
    [$d get-module Manual] add-route-to-adj-node -default $r2
    [$r1 get-module Manual] add-route-to-adj-node $s
    [$r2 get-module Manual] add-route-to-adj-node $d
    return [list $s $d]
}

# A one-way TCP of class `cls` from node s to node d with an FTP source
# started at `start`, received by an agent of `sink_cls`; returns {tcp sink}.
proc bulk_tcp {ns cls s d fid start {sink_cls TCPSink}} {
    set tcp [new Agent/TCP/$cls]
    $tcp set fid_ $fid
    set sink [new Agent/$sink_cls]
    $ns attach-agent $s $tcp
    $ns attach-agent $d $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at $start "$ftp start"
    return [list $tcp $sink]
}

# The counters of the queue `qmon` and of the (tcp sink) pairs `conns` (`wire` bytes per
# data packet): what `measure` takes at both ends.
proc counters {ns qmon conns wire} {
    set t {}
    foreach c $conns { lappend t [tcp_counters {*}$c $wire] }
    return [list [queue_counters $ns $qmon] $t]
}

# Measures the queue and the connections from `from` to `to` (seconds; a `from` of 0 is
# now): at `to` prints what they counted in between (the TCP keys with `prefix`, goodput
# from `payload` bytes per packet) and ends the run.
proc measure {ns qmon conns wire payload prefix from to} {
    set call [list measure_start $ns $qmon $conns $wire $payload $prefix $from $to]
    if {$from > 0} { $ns at $from $call } else { eval $call }
}
proc measure_start {ns qmon conns wire payload prefix from to} {
    set before [counters $ns $qmon $conns $wire]
    $ns at $to [list measure_end $ns $qmon $conns $wire $payload $prefix $from $to $before]
}
proc measure_end {ns qmon conns wire payload prefix from to before} {
    set after [counters $ns $qmon $conns $wire]
    set span [expr {$to - $from}]
    puts "duration_s=$to"
    print_queue "" [lindex $before 0] [lindex $after 0] $span
    print_tcp $prefix [lindex $before 1] [lindex $after 1] $payload $span
    exit 0
}
