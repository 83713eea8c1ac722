### simple_word
echo
### simple_args
echo hello world
### simple_path_program
/usr/bin/git status
### simple_relative_program
./bin/git.exe push
### assign_only
a=1
### assign_prefix
FOO=bar BAZ=qux cmd arg
### assign_empty
a= cmd
### assign_append
a+=x
### assign_index
arr[3]=x
### assign_index_expr
arr[$i+1]=y
### assign_array
arr=(a b 'c d' "e")
### assign_array_keys
declare -A m=([k]=v [x]=y)
### assign_array_newlines
arr=(
  one   # comment
  two
)
### assign_tilde
PATH=~/bin:~root/bin:$PATH
### assign_not_after_word
echo a=b
### assign_quoted_name_is_word
"a"=b
### local_array
f() { local -a xs=(1 2 3); }
### words_single_quote
echo 'a b' 'c"d'
### words_double_quote
echo "a b" "c'd" "e\"f"
### words_mixed_quotes
echo a'b'"c"d
### words_backslash
echo a\ b \$x \\
### words_line_continuation
echo a\
b
### words_continuation_between
echo one \
  two
### words_cr_inside
echo ab
### words_cr_quoted
echo "x"
### words_unicode
echo héllo 'wörld' "✓"
### ansi_c_basic
echo $'a\nb\tc'
### ansi_c_escapes
echo $'\x41\101\u00e9\'\\\e\cA'
### ansi_c_quote_inside
echo $'it\'s'
### locale_string
echo $"hello $USER"
### param_simple
echo $HOME $1 $@ $* $# $? $$ $! $- $0
### param_braced
echo ${HOME} ${10} ${@}
### param_default
echo ${a:-def} ${a-def} ${a:=x} ${a=x} ${a:?err} ${a?err} ${a:+alt} ${a+alt}
### param_length
echo ${#a} ${#arr[@]} ${#}
### param_remove
echo ${x#y} ${x##*/} ${x%.*} ${x%%.*}
### param_hash_in_pattern
echo ${x#\#} ${x#'#'}
### param_replace
echo ${x/a/b} ${x//a/b} ${x/#a/b} ${x/%a/b} ${x/a}
### param_substring
echo ${x:1} ${x:1:2} ${x: -1} ${x:(-2):1}
### param_case
echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[ab]}
### param_transform
echo ${x@Q} ${x@E} ${x@P} ${x@A} ${x@a}
### param_indirect
echo ${!ref} ${!pre*} ${!pre@} ${!arr[@]}
### param_index
echo ${arr[0]} ${arr[@]} ${arr[*]} ${arr[$i]} ${arr[i+1]}
### param_nested
echo ${a:-${b:-$(echo c)}}
### param_quoted_default
echo "${a:-'x y'}" ${a:-"q $b"}
### param_bad_name
echo ${}
### param_dollar_at_end
echo cost$ and $
### cmdsubst_simple
echo $(date)
### cmdsubst_nested
echo $(echo $(echo deep))
### cmdsubst_quoted
echo "$(git rev-parse "HEAD")"
### cmdsubst_quotes_nested_in_dq
echo "$(echo "a 'b' \"c\"")"
### cmdsubst_case_paren
echo $(case x in x) echo y;; esac)
### cmdsubst_case_leading_paren
x=$(case a in (a) echo 1;; (b|c) echo 2;; esac)
### cmdsubst_comment_apostrophe
echo $(
  # don't break
  echo ok
)
### cmdsubst_heredoc_inside
x=$(cat <<EOF
hello
EOF
)
### cmdsubst_multiline
v=$(
  git status
  git log
)
### cmdsubst_subshell_start
echo $( (echo a) )
### backtick_simple
echo `date`
### backtick_nested_escaped
echo `echo \`echo inner\``
### backtick_in_dq
echo "now: `date +%s`"
### backtick_dollar_escape
echo `echo \$HOME`
### arith_dollar
echo $((1 + 2 * 3))
### arith_hash_base
echo $((16#ff + 2#101))
### arith_nested_parens
echo $(( (1+2) * (3+4) ))
### arith_with_expansion
echo $(( $x + ${y:-0} + $(echo 3) ))
### arith_brackets
echo $[1+2]
### arith_shift_not_heredoc
echo $((1 << 3)) $((8 >> 1))
### arith_command
(( x = 1 << 2 ))
### arith_command_cond
(( a < b )) && echo less
### arith_fallback_subshell
((echo a) )
### procsubst_in
diff <(ls a) <(ls b)
### procsubst_out
tee >(grep x) > /dev/null
### procsubst_midword
echo a<(true)
### glob_star
ls *.rs
### glob_question
ls file?.txt
### glob_bracket
ls [abc]*.txt
### glob_escaped
echo \* '*' "*"
### glob_bracket_alone
[ -f x ]
### extglob_forms
ls !(a|b) @(x|y) ?(z) *(w) +(v)
### brace_comma
echo {a,b,c}
### brace_sequence
echo {1..5} {a..e} {1..10..2}
### brace_prefix_suffix
cp file.{txt,bak}
### brace_nested
echo {a,{b,c}}d
### brace_not
echo {} {a} x{y}z
### brace_find_placeholder
find . -name '*.rs' -exec wc -l {} +
### tilde_forms
cd ~ && ls ~/x ~root/y ~+ ~-
### tilde_not_mid
echo a~b
### comment_line
# just a comment
### comment_trailing
echo hi # comment 'unbalanced
### comment_apostrophe
# it's fine
echo ok
### comment_not_midword
echo a#b
### comment_after_semicolon
echo a;# comment
### hash_in_braces
echo ${#x} ${x#y}
### redir_out
echo hi > out
### redir_append
echo hi >> out
### redir_in
wc -l < file
### redir_clobber
echo hi >| out
### redir_readwrite
exec 3<> /dev/tcp/host/80
### redir_both
cmd &> /dev/null
### redir_both_append
cmd &>> log
### redir_fd_dup
cmd 2>&1
### redir_fd_dup_in
cmd 0<&3
### redir_close
cmd <&- 2>&-
### redir_fd_number
cmd 3> file 4< other
### redir_fd_var
exec {fd}> file
### redir_dupout_word
cmd >& file
### redir_before_command
> out echo hi
### redir_only
> empty
### redir_no_space
echo hi>out 2>err
### redir_number_not_fd
echo 12 > x
### redir_quoted_digit_not_fd
echo "2">x
### herestring
cat <<< "hello $USER"
### herestring_word
grep x <<< abc
### heredoc_basic
cat <<EOF
hello $USER
EOF
### heredoc_quoted
cat <<'EOF'
hello $USER `not run`
EOF
### heredoc_dquoted_delim
cat <<"EOF"
$x
EOF
### heredoc_partly_quoted_delim
cat <<E"O"F
$x
EOF
### heredoc_escaped_delim
cat <<\EOF
$x
EOF
### heredoc_strip_tabs
	cat <<-EOF
	indented
		more
	EOF
### heredoc_two_on_line
cat <<A <<B
a body
A
b body
B
### heredoc_two_commands
cat <<A; cat <<B
one
A
two
B
### heredoc_with_pipe
cat <<EOF | grep x
x1
y2
EOF
### heredoc_with_and
cat <<EOF && echo done
body
EOF
### heredoc_cmdsubst_in_body
cat <<EOF
now $(date) and `whoami`
EOF
### heredoc_unterminated
cat <<EOF
no end
### heredoc_empty_body
cat <<EOF
EOF
### heredoc_empty_delim
cat <<''
body

### heredoc_in_loop
while read l; do echo $l; done <<EOF
a
b
EOF
### heredoc_in_function
f() {
  cat <<EOF
in f
EOF
}
### heredoc_delim_with_spaces_after
cat <<EOF
x
EOF 
EOF
### heredoc_to_bash
bash <<'EOF'
git push origin main
EOF
### heredoc_cat_to_sh
cat <<EOF | sh
rm -rf /tmp/x
EOF
### herestring_to_bash
bash <<< 'gh pr merge 1'
### pipeline_two
ls | wc -l
### pipeline_three
a | b | c
### pipeline_stderr
make |& tee log
### pipeline_newline_after_bar
echo a |
  cat
### pipeline_negated
! grep -q x file
### pipeline_double_negation
! ! true
### pipeline_time
time sleep 1
### pipeline_time_p
time -p ls | wc
### pipeline_time_alone
time
### pipeline_bang_alone
!
### andor_and
a && b
### andor_or
a || b
### andor_chain
a && b || c && d
### andor_newline_after
a &&
  b ||
  c
### or_true
gh pr create || true
### or_colon
git push || :
### or_echo
git push || echo failed
### or_exit0
git push || exit 0
### list_semicolons
a; b; c
### list_background
a & b & wait
### list_newlines
a
b

c
### list_trailing_semicolon
a;
### list_mixed
a && b; c || d & e
### subshell_basic
(cd /tmp && ls)
### subshell_nested
((a) && (b))
### subshell_redirect
(echo a; echo b) > out 2>&1
### subshell_multiline
(
  cd x
  make
)
### brace_group
{ echo a; echo b; }
### brace_group_redirect
{ git push; } >/dev/null 2>&1
### brace_group_or_true
{ gh pr merge 1; } || true
### brace_group_multiline
{
  echo a
  echo b
}
### brace_group_no_space_close
{ echo a;}
### brace_word_not_group
echo { }
### if_basic
if true; then echo y; fi
### if_else
if a; then b; else c; fi
### if_elif
if a; then b; elif c; then d; elif e; then f; else g; fi
### if_multiline
if [ -f x ]
then
  echo yes
else
  echo no
fi
### if_redirect
if a; then b; fi > out
### if_nested
if a; then if b; then c; fi; fi
### if_condition_list
if a; b && c; then d; fi
### while_basic
while true; do sleep 1; done
### while_read
while read -r line; do echo "$line"; done < file.txt
### while_multiline
while ! curl -s localhost
do
  sleep 2
done
### until_basic
until curl -s x; do sleep 5; done
### while_counter
while [ $i -lt 10 ]; do i=$((i+1)); sleep 1; done
### while_dbl_bracket_counter
while [[ $n -le 5 ]]; do sleep 1; done
### while_arith_cond
while (( n < 10 )); do sleep 1; ((n++)); done
### while_pipe_into
ls | while read f; do echo $f; done
### for_in
for f in a b c; do echo $f; done
### for_in_glob
for f in *.txt; do cat "$f"; done
### for_no_in
for arg; do echo $arg; done
### for_no_in_newline
for arg
do echo $arg
done
### for_in_empty
for x in; do echo $x; done
### for_in_newline
for x in a b
do
  echo $x
done
### for_brace_body
for x in a b; { echo $x; }
### for_arith
for ((i=0; i<10; i++)); do echo $i; done
### for_arith_empty
for ((;;)); do sleep 1; done
### for_arith_no_semicolon
for ((i=0;i<3;i++)) do echo $i; done
### for_arith_spaces
for (( i = 0 ; i < n ; i += 2 )); do :; done
### select_basic
select x in a b; do echo $x; break; done
### case_basic
case $x in a) echo a;; b|c) echo bc;; *) echo other;; esac
### case_multiline
case "$1" in
  start)
    run
    ;;
  stop|halt)
    kill
    ;;
esac
### case_fallthrough
case x in a) echo 1 ;& b) echo 2 ;;& c) echo 3 ;; esac
### case_last_no_terminator
case x in a) echo a
esac
### case_empty_arm
case x in a) ;; b) echo b;; esac
### case_paren_patterns
case x in (a) echo 1;; (b) echo 2;; esac
### case_empty
case x in esac
### case_pattern_quoted
case $x in "a b"|'c)d') echo q;; esac
### case_glob_patterns
case $f in *.tar.gz|*.tgz) tar xzf "$f";; [0-9]*) echo num;; esac
### case_in_newline
case x
in
x) echo x;;
esac
### test_basic
[[ -f file ]]
### test_and_or
[[ -n $a && ( $b == c || -z $d ) ]]
### test_comparison
[[ $a < $b ]] && [[ $x > y ]]
### test_regex
[[ $x =~ ^(a|b)[0-9]+$ ]]
### test_negation
[[ ! -d dir ]]
### test_lt_numeric
[[ $i -lt 10 ]]
### test_multiline
[[ -f a &&
   -f b ]]
### test_pattern
[[ $f == *.txt ]]
### func_parens
f() { echo hi; }
### func_keyword
function g { echo hi; }
### func_keyword_parens
function h() { echo hi; }
### func_subshell_body
f() ( cd /tmp; ls )
### func_redirect
f() { echo; } > log
### func_newline_body
f()
{
  echo body
}
### func_if_body
f() if true; then echo; fi
### func_name_dash
my-func() { :; }
### func_call_later
deploy() { git push origin main; }
deploy
### coproc_simple
coproc cat
### coproc_named
coproc mycat { cat; }
### coproc_compound
coproc { sleep 1; }
### eval_static
eval "git push origin main"
### eval_joined
eval git status '&&' git push
### eval_dynamic
eval "$cmd"
### eval_nested_quotes
eval 'echo "a b"; rm x'
### bash_c
bash -c 'git push origin main'
### sh_c_cluster
sh -ec 'gh pr merge 1'
### bash_lc
bash -lc "cd repo && git reset --hard"
### bash_c_args
bash -c 'echo $0 $1' name arg
### bash_c_option_o
bash -o pipefail -c 'a | b'
### zsh_c
zsh -c 'ls'
### bash_c_dynamic
bash -c "git push origin $branch"
### bash_c_nested
bash -c "sh -c 'git push'"
### bash_script_file
bash deploy.sh arg
### bash_stdin_s
bash -s < script.sh
### echo_to_sh
echo 'git push' | sh
### printf_to_bash
printf 'rm -rf x' | bash
### env_wrapper
env FOO=1 git push
### env_options
env -i -u HOME PATH=/bin git status
### env_chdir
env -C /repo git reset --hard
### env_split
env -S 'A=1 git push' origin
### env_alone
env
### sudo_wrapper
sudo -u root -E git push
### sudo_list
sudo -l
### doas_wrapper
doas -u admin rm x
### command_wrapper
command git push
### command_v
command -v git
### exec_wrapper
exec git push
### exec_redirect_only
exec >/dev/null 2>&1
git push
### nohup_wrapper
nohup ./server &
### nice_wrapper
nice -n 10 make
### nice_numeric
nice -5 make
### ionice_wrapper
ionice -c 3 rsync a b
### timeout_wrapper
timeout 10 curl x
### timeout_signal
timeout -s KILL -k 5 30s bash -c 'while true; do sleep 1; done'
### gtimeout_wrapper
gtimeout 5 make
### time_command
command time -v make
### stdbuf_wrapper
stdbuf -oL tail -f log
### setsid_wrapper
setsid -f server
### chrt_wrapper
chrt -f 10 app
### taskset_wrapper
taskset -c 0 app
### flock_wrapper
flock /tmp/lock git push
### flock_c
flock -n /tmp/lock -c 'git push'
### xargs_wrapper
ls | xargs -0 -n 1 rm -f
### xargs_replace
find . | xargs -I {} cp {} /tmp
### xargs_default_echo
echo a | xargs
### find_exec
find . -type f -exec rm {} \;
### find_execdir_plus
find . -name '*.o' -execdir rm -f {} +
### find_ok
find . -ok git rm {} \;
### watch_wrapper
watch -n 5 git status
### watch_exec
watch -x git status
### nested_wrappers
sudo env FOO=1 timeout 5 nice git push
### wrapper_dynamic_option
timeout $T git push
### dynamic_program
$GIT push
### dynamic_program_subst
$(which git) push
### echo_mentions_git
echo git reset --hard
### grep_mentions_gh
grep 'gh pr merge' file
### cd_then_git
cd /repo && git reset --hard
### cd_in_subshell_not_leaking
(cd /a); git status
### cd_in_group_leaks
{ cd /a; }; git status
### cd_home
cd; git status
### cd_dash
cd - && git status
### pushd_popd
pushd /x; git log; popd; git log
### cd_in_pipeline_no_leak
cd /a | cat; git status
### cd_background_no_leak
cd /a & git status
### export_then_use
export GH_REPO=other/repo; gh pr create
### export_later_value
GIT_DIR=/x; export GIT_DIR; git status
### declare_x
declare -x GIT_WORK_TREE=/w; git add .
### unset_var
export A=1; unset A; cmd
### exec_redirect_applies
exec 2>/dev/null; gh pr create
### nested_group_redirect
{ { gh pr create; } ; } > /dev/null
### subshell_or_true
(gh issue create) || true
### pipeline_redirect_last
gh pr list | cat > /dev/null
### loop_with_bash_c_sleep
while true; do bash -c 'sleep 1'; done
### timeout_bash_loop
timeout 600 bash -c 'until gh pr checks; do sleep 30; done'
### nested_loops
while a; do for x in 1 2; do sleep $x; done; done
### loop_in_cmdsubst
x=$(while true; do sleep 1; done)
### loop_redirect_herestring
while read x; do sleep 1; done <<< "a b"
### eval_in_loop
while true; do eval 'sleep 1'; done
### keyword_as_arg
echo if then fi do done
### keyword_after_assign
a=1 if
### reserved_brace_arg
echo }
### semicolon_after_do
for x in a; do echo; done; echo after
### long_pipeline_multiline
cat file \
  | grep x \
  | sort \
  | uniq -c
### dollar_single_quote_in_dq
echo "$'not ansi'"
### dq_escaped_newline
echo "a\
b"
### sq_newline
echo 'a
b'
### dq_newline
echo "a
b"
### empty_string_args
cmd '' ""
### special_chars_literal
echo a=b c:d e,f g.h @x %y ^z
### equals_in_word
git -c core.hooksPath=/dev/null commit -m x
### gh_api_field
gh api -X POST repos/o/r/issues -f title="T" -F body=@file
### git_push_refspec
git push origin +HEAD:refs/heads/main
### curl_json
curl -X POST -d '{"a": 1}' https://api.github.com/x
### claude_model
ANTHROPIC_MODEL=opus claude --model claude-opus-4 -p hi
### python_c
python3 -c 'import os; print(1)'
### node_e
node -e "console.log(1)"
### semicolon_in_quotes
echo 'a;b' "c&&d" e\;f
### pipe_in_quotes
echo 'a|b' "c|d"
### multi_statement_line
cd x; make; make install
### and_or_with_groups
{ a; } && { b; } || { c; }
### if_in_pipeline
if true; then echo; fi | cat
### while_in_andor
true && while false; do :; done
### case_in_pipeline
case x in x) echo;; esac | cat
### subshell_in_cmdsubst
echo $( (cd x && pwd) )
### cmdsubst_in_redirect_target
echo x > "$(mktemp)"
### cmdsubst_in_assignment
out=$(git push 2>&1)
### cmdsubst_in_heredoc_line
cat <<EOF > $(echo f)
body
EOF
### cmdsubst_in_for_items
for b in $(git branch); do git branch -D $b; done
### cmdsubst_in_case_subject
case $(uname) in Linux) echo l;; esac
### procsubst_with_git
diff <(git show a:f) <(git show b:f)
### arith_in_index
echo ${a[$((i+1))]}
### param_in_test
[[ ${x:-a} == a ]]
### backtick_in_assign
d=`date`
### many_redirects
cmd <in >out 2>err 3>&1 4<&0
### redirect_glob_target
echo > *.log
### heredoc_then_more_commands
cat <<EOF
a
EOF
echo after
### heredoc_in_if_cond
if cat <<EOF; then echo ok; fi
body
EOF
### heredoc_tab_delim_quoted
	cat <<-'X'
		$lit
	X
### heredoc_pipeline_to_bash
cat <<'EOF' | bash
git push
EOF
### heredoc_to_python_not_shell
python3 <<EOF
print(1)
EOF
### heredoc_inside_cmdsubst_inside_dq
echo "$(cat <<EOF
x
EOF
)"
### crlf_line
echo a
### err_unclosed_single
echo 'abc
### err_unclosed_double
echo "abc
### err_unclosed_subst
echo $(ls
### err_unclosed_backtick
echo `ls
### err_unclosed_brace_param
echo ${x
### err_unexpected_then
then echo
### err_fi_alone
fi
### err_done_alone
done
### err_esac_alone
esac
### err_close_paren
)
### err_close_brace
}
### err_if_missing_fi
if true; then echo
### err_if_empty_then
if true; then fi
### err_while_no_do
while true; done
### for_bad_name_is_runtime_error
for 1x in a; do :; done
### err_case_no_in
case x y) ;; esac
### err_pipe_at_end
echo a |
### err_and_at_end
echo a &&
### err_and_at_start
&& echo a
### err_semicolon_start
; echo
### err_double_semicolon
echo a;;
### err_empty_subshell
( )
### err_empty_group
{ }
### err_redirect_no_target
echo >
### err_redirect_to_operator
echo > ;
### err_func_body_simple
f() echo hi
### err_bad_paren_in_word
echo a(b)
### err_after_group
{ echo; } x
### err_part_before_runs
echo first
echo second; if
### err_same_line_not_run
echo first; (
### err_pipe_bang
a | ! b
### err_unclosed_array
a=(1 2
### err_unclosed_arith
echo $((1+2
### err_unclosed_test
[[ -f x
### test_empty_accepted
[[ ]]
### err_else_without_if
else
### err_in_cmdsubst
echo $(if)
### err_case_unclosed
case x in a) echo
### err_heredoc_in_error_line
cat <<EOF; (
body
EOF
### err_bad_redirect_digit_word
echo 2>
### err_two_bangs_in_pipe
a | ! ! b
### err_func_no_body
f()
### err_coproc_alone
coproc
### err_time_in_middle_pipe
a | time b
### ansi_c_hex_braces
$'\x{72}m' -rf x $'\x{4142}' $'\x{41zz}b'
### ansi_c_nul_ends_the_part
$'rm\x00zz'abc -rf x$'\0q'y $'\c@x'y
### subscript_with_blanks
a[ 1 ]=2 rm -rf x
### env_clusters_and_dash
env -iS 'git push origin main'; env - git status; env -vu HOME git log
### find_exec_shell_script
find . -exec sh -c 'git push origin main' \;
### nested_trap_script_tmux_screen
trap 'git push origin main' EXIT; script -qc 'gh pr merge 1' /tmp/t; tmux new -d 'git push'; tmux send-keys -t 0 'git push' Enter; runuser -l u -c 'git status'
### nested_stdin_and_process_substitution
bash - <<< 'git push'; . /dev/stdin <<< 'gh pr merge 1'; source <(echo 'git push'); bash <(printf 'git %s\n' push)
### nested_eval_of_known_values
x="git push origin main"; eval "$x"; eval "$(printf 'git push origin %s' main)"; bash -c "$(echo 'git status')"
### nested_interpreter_strings
python3 -c 'import os; os.system("git push origin main")'; echo 'git push' | at now
### eval_and_source_leave_state
eval 'cd /r; export GH_REPO=o/x'; gh pr create; source <(echo cd /s); git status; bash -c 'cd /t'; git log
