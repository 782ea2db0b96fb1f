#!/bin/sh
# Fetches the public sources of `make eval-real` into DEST, each at the
# commit the evaluation is pinned to (docs/evaluation-real.md):
#
#   tools/eval-real/fetch.sh DEST
#
# Each repository is cloned from GitHub (or, when KENNING_REAL_MIRRORS
# names a folder of local clones, one per repository named `owner+name`,
# bare or not, from there),
# checked to hold its pinned commit, and what the evaluation reads is laid
# out under DEST:
#
#   DEST/git/sway.git                 swaywm/sway, bare (read at its pin)
#   DEST/mail/linux-mips.mbox         the linux-mips list, the last 365 days
#                                     of its public-inbox archive, as mboxrd
#   DEST/slack/houstondatavis/        a Slack export (users.json, channels.json, days)
#   DEST/stackexchange/beer/Posts.xml Beer Stack Exchange's posts
#
# Nothing here is committed: DEST is outside the repository (or ignored).
set -eu

DEST=${1:?usage: fetch.sh DEST}
MIRRORS=${KENNING_REAL_MIRRORS:-}
mkdir -p "$DEST/.repos"
DEST=$(cd "$DEST" && pwd)

# clone OWNER/NAME COMMIT: a bare clone in DEST/.repos holding COMMIT.
clone() {
    repo=$1 commit=$2
    into="$DEST/.repos/$(echo "$repo" | tr / +).git"
    if [ ! -d "$into" ]; then
        from="https://github.com/$repo.git"
        if [ -n "$MIRRORS" ]; then
            local_name="$MIRRORS/$(echo "$repo" | tr / +)"
            for dir in "$local_name/.git" "$local_name" "$local_name.git" \
                       "$local_name/repo/.git" "$local_name/repo"; do
                if [ -e "$dir/HEAD" ]; then from=$dir; break; fi
            done
        fi
        echo "clone $repo from $from" >&2
        git clone --quiet --bare "$from" "$into.part"
        mv "$into.part" "$into"
    fi
    if ! git -C "$into" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "$repo: commit $commit not found" >&2
        exit 1
    fi
    echo "$into"
}

# A git history: swaywm/sway (MIT), read by `kenning connect git --revision`.
SWAY=6959a78a8f0d52f79ad7465135b3295307a5146a
repo=$(clone swaywm/sway $SWAY)
mkdir -p "$DEST/git"
if [ ! -d "$DEST/git/sway.git" ]; then
    git clone --quiet --bare "$repo" "$DEST/git/sway.git"
fi
git -C "$DEST/git/sway.git" update-ref refs/heads/eval-real $SWAY

# A mailing list: the linux-mips list's public-inbox archive (one message a
# commit, the message the blob `m`), its last 365 days before the pin,
# written as mboxrd.
MIPS=1d0fd32437a863629c2af990076ae36090779681
repo=$(clone copslock/kenerl_mipsel_loongson $MIPS)
mkdir -p "$DEST/mail"
if [ ! -s "$DEST/mail/linux-mips.mbox" ]; then
    last=$(git -C "$repo" log -1 --format=%ct $MIPS)
    since=$((last - 365 * 86400))
    git -C "$repo" rev-list --reverse --since="$since" $MIPS \
        | sed 's/$/:m/' \
        | git -C "$repo" cat-file --batch \
        | perl -e '
            binmode STDIN; binmode STDOUT;
            while (my $head = <STDIN>) {
                my ($oid, $type, $size) = split / /, $head;
                if (!defined $size) { next; }
                read(STDIN, my $m, $size); <STDIN>;
                $m =~ s/\r\n/\n/g;
                $m =~ s/^(>*From )/>$1/mg;
                $m .= "\n" unless $m =~ /\n\z/;
                print "From mboxrd\@z Thu Jan  1 00:00:00 1970\n", $m, "\n";
            }' > "$DEST/mail/linux-mips.mbox.part"
    mv "$DEST/mail/linux-mips.mbox.part" "$DEST/mail/linux-mips.mbox"
fi

# A chat: the Houston Data Visualization community's Slack export of
# 2016-07-31 (MIT).
HOUSTON=cd61170f9d217e584c963f75400a5b9550209e86
repo=$(clone houstondatavis/slack-export $HOUSTON)
if [ ! -d "$DEST/slack/houstondatavis" ]; then
    mkdir -p "$DEST/slack/houstondatavis.part"
    git -C "$repo" archive $HOUSTON | tar -x -C "$DEST/slack/houstondatavis.part"
    mv "$DEST/slack/houstondatavis.part" "$DEST/slack/houstondatavis"
fi

# A Q&A site: Beer Stack Exchange's Posts.xml (2014-2017, CC BY-SA 3.0),
# as published in kevswanberg/beer_tentrr.
BEER=9573647bff33c61bdce2f07a9000a4098fd3074d
repo=$(clone kevswanberg/beer_tentrr $BEER)
mkdir -p "$DEST/stackexchange/beer"
if [ ! -s "$DEST/stackexchange/beer/Posts.xml" ]; then
    git -C "$repo" show "$BEER:Posts.xml" > "$DEST/stackexchange/beer/Posts.xml.part"
    mv "$DEST/stackexchange/beer/Posts.xml.part" "$DEST/stackexchange/beer/Posts.xml"
fi

echo "fetched into $DEST" >&2
