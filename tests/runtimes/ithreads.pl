#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# ithreads.pl -- perl's ithreads under libclof-preload.so (runtimes_suite.sh):
# threads::shared's lock() is a recursive lock built from a pthread mutex and
# condition variable, cond_wait/cond_signal wait on them, and the
# interpreter's own mutexes (the shared-memory interpreter, the op tree, the
# environment) are pthread mutexes.  Two parts, each checks its totals: 8
# threads add to a shared counter under lock(); a bounded queue, 2 producers
# and 2 consumers on cond_wait/cond_signal.  A mismatch: a line on stderr,
# exit 1.  At the end one line "ok ...".
# Run: perl tests/runtimes/ithreads.pl [SCALE]
use strict;
use warnings;
use threads;
use threads::shared;

my $scale = $ARGV[0] // 1;
sub fail { print STDERR "ithreads: FAIL @_\n"; exit 1; }

# 1. a shared counter and a shared sum of the adders' ids, under lock()
my $per = int(6000 * $scale);
my $threads = 8;
my $count :shared = 0;
my $idsum :shared = 0;
my @adders = map {
    my $id = $_;
    threads->create(sub {
        for (1 .. $per) {
            lock($count);
            $count++;
            $idsum += $id;
        }
        return $id;
    });
} 1 .. $threads;
my $joined = 0;
$joined += $_->join for @adders;
my $want = $threads * $per;
my $want_ids = $per * $threads * ($threads + 1) / 2;
fail("counter $count (want $want), id sum $idsum (want $want_ids)")
    if $count != $want || $idsum != $want_ids || $joined != $threads * ($threads + 1) / 2;

# 2. a bounded queue (at most 4 items): producers wait while it is full,
# consumers while it is empty; a producer's items are distinct numbers;
# consumers stop at an undef each
my @queue :shared;
my $items = int(8000 * $scale);
my ($producers, $consumers) = (2, 2);
my $cap = 4;
my @cons = map {
    threads->create(sub {
        my ($n, $sum) = (0, 0);
        for (;;) {
            my $v;
            {
                lock(@queue);
                cond_wait(@queue) until @queue;
                $v = shift @queue;
                cond_broadcast(@queue);
            }
            return "$n $sum" unless defined $v;
            $n++;
            $sum += $v;
        }
    });
} 1 .. $consumers;
my @prods = map {
    my $base = ($_ - 1) * $items;
    threads->create(sub {
        for my $k (1 .. $items) {
            lock(@queue);
            cond_wait(@queue) until @queue < $cap;
            push @queue, $base + $k;
            cond_signal(@queue);
        }
        return 0;
    });
} 1 .. $producers;
$_->join for @prods;
for (1 .. $consumers) {
    lock(@queue);
    cond_wait(@queue) until @queue < $cap;
    push @queue, undef;
    cond_broadcast(@queue);
}
my ($n, $sum) = (0, 0);
for (@cons) {
    my ($cn, $cs) = split ' ', $_->join;
    $n += $cn;
    $sum += $cs;
}
my $total = $producers * $items;
fail("queue: $n items (want $total), sum $sum (want " . $total * ($total + 1) / 2 . "), "
     . scalar(@queue) . " left")
    if $n != $total || $sum != $total * ($total + 1) / 2 || @queue;
print "ok counter=$count queue=$n threads=" . ($threads + $producers + $consumers) . "\n";
