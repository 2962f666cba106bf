#!/usr/bin/env python3
"""Build a second damaged-patch corpus from other projects' releases, with the shared corpus's
own derivation (../shared/corpus), to check that a change generalises beyond the public sample.

    python3 scripts/alt-corpus.py [--set a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s] --out /tmp/alt-corpus [--per-cat 30]
    python3 ../shared/corpus/run.py --cases-dir /tmp/alt-corpus --tool mine --cmd 'git llm-apply {patch}'
"""
import sys
from pathlib import Path

shared = Path(__file__).resolve().parent.parent.parent / 'shared' / 'corpus'
if not (shared / 'make_corpus.py').exists():
    sys.exit(f'no shared corpus scripts at {shared}: this script needs ../shared')
sys.path.insert(0, str(shared))
import make_corpus  # noqa: E402

SETS = {}
SETS['a'] = {
    'attrs': dict(kind='pypi', name='attrs', lang='python', code_ext=('.py',), indent=4, tabs=False,
                  versions=['23.1.0', '23.2.0', '24.1.0', '24.2.0', '24.3.0', '25.1.0']),
    'packaging': dict(kind='pypi', name='packaging', lang='python', code_ext=('.py',), indent=4, tabs=False,
                      versions=['23.0', '23.1', '23.2', '24.0', '24.1', '24.2']),
    'chalk': dict(kind='npm', name='chalk', lang='javascript', code_ext=('.js', '.ts'), indent=1, tabs=True,
                  versions=['5.0.0', '5.0.1', '5.1.0', '5.1.1', '5.1.2', '5.2.0', '5.3.0']),
    'minimatch': dict(kind='npm', name='minimatch', lang='javascript', code_ext=('.js', '.ts'), indent=2,
                      tabs=False, versions=['9.0.0', '9.0.1', '9.0.2', '9.0.3', '9.0.4', '9.0.5']),
    'semver-rs': dict(kind='crate', name='semver', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                      versions=['1.0.18', '1.0.19', '1.0.20', '1.0.21', '1.0.22', '1.0.23']),
    'log': dict(kind='crate', name='log', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                versions=['0.4.18', '0.4.19', '0.4.20', '0.4.21', '0.4.22']),
}

SETS['b'] = {
    'idna': dict(kind='pypi', name='idna', lang='python', code_ext=('.py',), indent=4, tabs=False,
                 versions=['3.4', '3.5', '3.6', '3.7', '3.8', '3.10']),
    'colorama': dict(kind='pypi', name='colorama', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['0.4.4', '0.4.5', '0.4.6']),
    'debug': dict(kind='npm', name='debug', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                  versions=['4.3.1', '4.3.2', '4.3.3', '4.3.4', '4.3.5', '4.3.6', '4.3.7']),
    'yargs-parser': dict(kind='npm', name='yargs-parser', lang='javascript', code_ext=('.js', '.ts'),
                         indent=2, tabs=False, versions=['21.0.0', '21.0.1', '21.1.0', '21.1.1']),
    'itoa': dict(kind='crate', name='itoa', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                 versions=['1.0.9', '1.0.10', '1.0.11', '1.0.12', '1.0.13', '1.0.14']),
    'memchr': dict(kind='crate', name='memchr', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                   versions=['2.7.0', '2.7.1', '2.7.2', '2.7.3', '2.7.4']),
}

SETS['c'] = {
    'tomli': dict(kind='pypi', name='tomli', lang='python', code_ext=('.py',), indent=4, tabs=False,
                  versions=['2.0.0', '2.0.1', '2.1.0', '2.2.1']),
    'pyparsing': dict(kind='pypi', name='pyparsing', lang='python', code_ext=('.py',), indent=4, tabs=False,
                      versions=['3.1.0', '3.1.1', '3.1.2', '3.1.3', '3.1.4']),
    'picomatch': dict(kind='npm', name='picomatch', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                      versions=['2.3.0', '2.3.1', '3.0.0', '3.0.1', '4.0.0', '4.0.1', '4.0.2']),
    'nanoid': dict(kind='npm', name='nanoid', lang='javascript', code_ext=('.js', '.ts'), indent=2, tabs=False,
                   versions=['5.0.1', '5.0.2', '5.0.3', '5.0.4', '5.0.5', '5.0.6', '5.0.7']),
    'bitflags': dict(kind='crate', name='bitflags', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                     versions=['2.4.0', '2.4.1', '2.4.2', '2.5.0', '2.6.0']),
    'once_cell': dict(kind='crate', name='once_cell', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                      versions=['1.17.2', '1.18.0', '1.19.0', '1.20.1', '1.20.2']),
}

SETS['d'] = {
    'pluggy': dict(kind='pypi', name='pluggy', lang='python', code_ext=('.py',), indent=4, tabs=False,
                   versions=['1.0.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0']),
    'platformdirs': dict(kind='pypi', name='platformdirs', lang='python', code_ext=('.py',), indent=4,
                         tabs=False, versions=['4.0.0', '4.1.0', '4.2.0', '4.2.1', '4.2.2', '4.3.2']),
    'dotenv': dict(kind='npm', name='dotenv', lang='javascript', code_ext=('.js', '.ts'), indent=2, tabs=False,
                   versions=['16.0.0', '16.0.1', '16.0.2', '16.0.3', '16.1.0', '16.3.0', '16.4.0']),
    'minimist': dict(kind='npm', name='minimist', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                     versions=['1.2.5', '1.2.6', '1.2.7', '1.2.8']),
    'either': dict(kind='crate', name='either', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                   versions=['1.8.0', '1.9.0', '1.10.0', '1.11.0', '1.12.0', '1.13.0']),
    'smallvec': dict(kind='crate', name='smallvec', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                     versions=['1.10.0', '1.11.0', '1.11.1', '1.11.2', '1.12.0', '1.13.1', '1.13.2']),
}

SETS['e'] = {
    'markdown': dict(kind='pypi', name='markdown', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['3.4.1', '3.4.2', '3.4.3', '3.4.4', '3.5', '3.5.1', '3.5.2', '3.6']),
    'wcwidth': dict(kind='pypi', name='wcwidth', lang='python', code_ext=('.py',), indent=4, tabs=False,
                    versions=['0.2.6', '0.2.8', '0.2.10', '0.2.12', '0.2.13']),
    'qs': dict(kind='npm', name='qs', lang='javascript', code_ext=('.js',), indent=4, tabs=False,
               versions=['6.11.0', '6.11.1', '6.11.2', '6.12.0', '6.12.1', '6.13.0']),
    'cookie': dict(kind='npm', name='cookie', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                   versions=['0.5.0', '0.6.0', '0.7.0', '0.7.1', '0.7.2']),
    'indexmap': dict(kind='crate', name='indexmap', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                     versions=['2.0.0', '2.0.1', '2.0.2', '2.1.0', '2.2.1', '2.2.6']),
    'unicode-width': dict(kind='crate', name='unicode-width', lang='rust', code_ext=('.rs',), indent=4,
                          tabs=False, versions=['0.1.10', '0.1.11', '0.1.12', '0.1.13', '0.1.14']),
}

SETS['f'] = {
    'pathspec': dict(kind='pypi', name='pathspec', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['0.11.0', '0.11.1', '0.11.2', '0.12.0', '0.12.1']),
    'more-itertools': dict(kind='pypi', name='more-itertools', lang='python', code_ext=('.py',), indent=4,
                           tabs=False, versions=['10.0.0', '10.1.0', '10.2.0', '10.3.0', '10.4.0', '10.5.0']),
    'kleur': dict(kind='npm', name='kleur', lang='javascript', code_ext=('.js', '.mjs'), indent=1, tabs=True,
                  versions=['4.1.0', '4.1.1', '4.1.2', '4.1.3', '4.1.4', '4.1.5']),
    'ini': dict(kind='npm', name='ini', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                versions=['4.0.0', '4.1.0', '4.1.1', '4.1.2', '4.1.3', '5.0.0']),
    'hex': dict(kind='crate', name='hex', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                versions=['0.4.0', '0.4.2', '0.4.3']),
    'arrayvec': dict(kind='crate', name='arrayvec', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                     versions=['0.7.0', '0.7.1', '0.7.2', '0.7.3', '0.7.4', '0.7.6']),
}

SETS['g'] = {
    'six': dict(kind='pypi', name='six', lang='python', code_ext=('.py',), indent=4, tabs=False,
                versions=['1.14.0', '1.15.0', '1.16.0', '1.17.0']),
    'tabulate': dict(kind='pypi', name='tabulate', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['0.8.9', '0.8.10', '0.9.0']),
    'ms': dict(kind='npm', name='ms', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
               versions=['2.0.0', '2.1.0', '2.1.1', '2.1.2', '2.1.3']),
    'mime-types': dict(kind='npm', name='mime-types', lang='javascript', code_ext=('.js',), indent=2,
                       tabs=False, versions=['2.1.33', '2.1.34', '2.1.35']),
    'bytes': dict(kind='crate', name='bytes', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                  versions=['1.4.0', '1.5.0', '1.6.1', '1.7.1', '1.7.2']),
    'fnv': dict(kind='crate', name='fnv', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                versions=['1.0.6', '1.0.7']),
}

SETS['h'] = {
    'markupsafe': dict(kind='pypi', name='markupsafe', lang='python', code_ext=('.py',), indent=4, tabs=False,
                       versions=['2.1.0', '2.1.1', '2.1.2', '2.1.3', '2.1.5', '3.0.0', '3.0.2']),
    'itsdangerous': dict(kind='pypi', name='itsdangerous', lang='python', code_ext=('.py',), indent=4,
                         tabs=False, versions=['2.0.0', '2.0.1', '2.1.0', '2.1.2', '2.2.0']),
    'camelcase': dict(kind='npm', name='camelcase', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                      versions=['6.0.0', '6.1.0', '6.2.0', '6.2.1', '6.3.0', '7.0.0', '7.0.1', '8.0.0']),
    'p-limit': dict(kind='npm', name='p-limit', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                    versions=['3.0.0', '3.0.2', '3.1.0', '4.0.0', '5.0.0', '6.0.0', '6.1.0']),
    'anyhow': dict(kind='crate', name='anyhow', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                   versions=['1.0.75', '1.0.79', '1.0.81', '1.0.83', '1.0.86', '1.0.89']),
    'heck': dict(kind='crate', name='heck', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                 versions=['0.4.0', '0.4.1', '0.5.0']),
}

SETS['i'] = {
    'toml': dict(kind='pypi', name='toml', lang='python', code_ext=('.py',), indent=4, tabs=False,
                 versions=['0.9.6', '0.10.0', '0.10.1', '0.10.2']),
    'filelock': dict(kind='pypi', name='filelock', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['3.12.0', '3.12.2', '3.12.4', '3.13.0', '3.13.1', '3.13.4', '3.14.0']),
    'strip-ansi': dict(kind='npm', name='strip-ansi', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                       versions=['6.0.0', '6.0.1', '7.0.0', '7.0.1', '7.1.0']),
    'ansi-styles': dict(kind='npm', name='ansi-styles', lang='javascript', code_ext=('.js',), indent=1,
                        tabs=True, versions=['4.3.0', '5.0.0', '5.1.0', '5.2.0', '6.0.0', '6.1.0', '6.2.1']),
    'scopeguard': dict(kind='crate', name='scopeguard', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                       versions=['1.1.0', '1.2.0']),
    'base64': dict(kind='crate', name='base64', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                   versions=['0.21.0', '0.21.2', '0.21.5', '0.21.7', '0.22.0', '0.22.1']),
}

SETS['j'] = {
    'cachetools': dict(kind='pypi', name='cachetools', lang='python', code_ext=('.py',), indent=4, tabs=False,
                       versions=['5.0.0', '5.1.0', '5.2.0', '5.3.0', '5.3.1', '5.3.2', '5.3.3', '5.4.0', '5.5.0']),
    'python-slugify': dict(kind='pypi', name='python-slugify', lang='python', code_ext=('.py',), indent=4,
                           tabs=False, versions=['8.0.0', '8.0.1', '8.0.2', '8.0.3', '8.0.4']),
    'picocolors': dict(kind='npm', name='picocolors', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                       versions=['1.0.0', '1.0.1', '1.1.0', '1.1.1']),
    'escape-string-regexp': dict(kind='npm', name='escape-string-regexp', lang='javascript', code_ext=('.js',),
                                 indent=1, tabs=True, versions=['2.0.0', '4.0.0', '5.0.0']),
    'lazy_static': dict(kind='crate', name='lazy_static', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                        versions=['1.3.0', '1.4.0', '1.5.0']),
    'ryu': dict(kind='crate', name='ryu', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                versions=['1.0.15', '1.0.16', '1.0.17', '1.0.18']),
}

SETS['k'] = {
    'humanize': dict(kind='pypi', name='humanize', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['4.6.0', '4.7.0', '4.8.0', '4.9.0', '4.10.0', '4.11.0']),
    'click-default-group': dict(kind='pypi', name='click-default-group', lang='python', code_ext=('.py',),
                                indent=4, tabs=False, versions=['1.2.2', '1.2.3', '1.2.4']),
    'is-plain-obj': dict(kind='npm', name='is-plain-obj', lang='javascript', code_ext=('.js',), indent=1,
                         tabs=True, versions=['2.1.0', '3.0.0', '4.0.0', '4.1.0']),
    'dequal': dict(kind='npm', name='dequal', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                   versions=['2.0.0', '2.0.1', '2.0.2', '2.0.3']),
    'static_assertions': dict(kind='crate', name='static_assertions', lang='rust', code_ext=('.rs',), indent=4,
                              tabs=False, versions=['1.0.0', '1.1.0']),
    'hashbrown': dict(kind='crate', name='hashbrown', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                      versions=['0.14.0', '0.14.1', '0.14.2', '0.14.3', '0.14.5']),
}

SETS['l'] = {
    'tenacity': dict(kind='pypi', name='tenacity', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['8.2.1', '8.2.2', '8.2.3', '8.3.0', '8.4.0', '8.4.1', '8.4.2', '8.5.0']),
    'termcolor': dict(kind='pypi', name='termcolor', lang='python', code_ext=('.py',), indent=4, tabs=False,
                      versions=['2.1.0', '2.1.1', '2.2.0', '2.3.0', '2.4.0', '2.5.0']),
    'ignore': dict(kind='npm', name='ignore', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                   versions=['5.2.0', '5.2.1', '5.2.2', '5.2.3', '5.2.4', '5.3.0', '5.3.1', '5.3.2']),
    'ansi-escapes': dict(kind='npm', name='ansi-escapes', lang='javascript', code_ext=('.js',), indent=1,
                         tabs=True, versions=['5.0.0', '6.0.0', '6.1.0', '6.2.0', '6.2.1', '7.0.0']),
    'textwrap': dict(kind='crate', name='textwrap', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                     versions=['0.15.0', '0.15.2', '0.16.0', '0.16.1']),
    'num-traits': dict(kind='crate', name='num-traits', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                       versions=['0.2.15', '0.2.16', '0.2.17', '0.2.18', '0.2.19']),
}

SETS['m'] = {
    'tomlkit': dict(kind='pypi', name='tomlkit', lang='python', code_ext=('.py',), indent=4, tabs=False,
                    versions=['0.12.0', '0.12.1', '0.12.2', '0.12.3', '0.12.4', '0.12.5', '0.13.0']),
    'blinker': dict(kind='pypi', name='blinker', lang='python', code_ext=('.py',), indent=4, tabs=False,
                    versions=['1.6.2', '1.6.3', '1.7.0', '1.8.0', '1.8.2']),
    'deepmerge': dict(kind='npm', name='deepmerge', lang='javascript', code_ext=('.js',), indent=1, tabs=True,
                      versions=['4.2.0', '4.2.1', '4.2.2', '4.3.0', '4.3.1']),
    'ws': dict(kind='npm', name='ws', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
               versions=['8.14.0', '8.14.1', '8.14.2', '8.15.0', '8.15.1', '8.16.0', '8.17.0', '8.17.1']),
    'tinyvec': dict(kind='crate', name='tinyvec', lang='rust', code_ext=('.rs',), indent=2, tabs=False,
                    versions=['1.6.0', '1.6.1', '1.7.0', '1.8.0']),
    'walkdir': dict(kind='crate', name='walkdir', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                    versions=['2.3.2', '2.3.3', '2.4.0', '2.5.0']),
}

SETS['n'] = {
    'pyflakes': dict(kind='pypi', name='pyflakes', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['3.0.0', '3.0.1', '3.1.0', '3.2.0', '3.3.0', '3.3.1', '3.3.2', '3.4.0']),
    'natsort': dict(kind='pypi', name='natsort', lang='python', code_ext=('.py',), indent=4, tabs=False,
                    versions=['8.0.0', '8.0.1', '8.0.2', '8.1.0', '8.2.0', '8.3.0', '8.3.1', '8.4.0']),
    'type-fest': dict(kind='npm', name='type-fest', lang='typescript', code_ext=('.ts',), indent=1, tabs=True,
                      versions=['4.30.0', '4.30.1', '4.30.2', '4.31.0', '4.32.0', '4.33.0', '4.34.0', '4.34.1',
                                '4.35.0']),
    'fastq': dict(kind='npm', name='fastq', lang='javascript', code_ext=('.js', '.ts'), indent=2, tabs=False,
                  versions=['1.15.0', '1.16.0', '1.17.0', '1.17.1', '1.18.0', '1.19.0', '1.19.1']),
    'quote': dict(kind='crate', name='quote', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                  versions=['1.0.30', '1.0.31', '1.0.32', '1.0.33', '1.0.34', '1.0.35', '1.0.36', '1.0.37']),
    'proc-macro2': dict(kind='crate', name='proc-macro2', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                        versions=['1.0.79', '1.0.80', '1.0.81', '1.0.82', '1.0.83', '1.0.84', '1.0.85', '1.0.86']),
}

SETS['o'] = {
    'soupsieve': dict(kind='pypi', name='soupsieve', lang='python', code_ext=('.py',), indent=4, tabs=False,
                      versions=['2.4', '2.4.1', '2.5', '2.6', '2.7', '2.8']),
    'sqlparse': dict(kind='pypi', name='sqlparse', lang='python', code_ext=('.py',), indent=4, tabs=False,
                     versions=['0.4.3', '0.4.4', '0.5.0', '0.5.1', '0.5.2', '0.5.3']),
    'execa': dict(kind='npm', name='execa', lang='javascript', code_ext=('.js', '.ts'), indent=1, tabs=True,
                  versions=['9.3.0', '9.3.1', '9.4.0', '9.4.1', '9.5.0', '9.5.1', '9.5.2']),
    'pino': dict(kind='npm', name='pino', lang='javascript', code_ext=('.js', '.ts'), indent=2, tabs=False,
                 versions=['9.0.0', '9.1.0', '9.2.0', '9.3.0', '9.3.1', '9.3.2', '9.4.0', '9.5.0']),
    'thiserror': dict(kind='crate', name='thiserror', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                      versions=['1.0.55', '1.0.56', '1.0.57', '1.0.58', '1.0.59', '1.0.60', '1.0.61', '1.0.62',
                                '1.0.63']),
    'pin-project-lite': dict(kind='crate', name='pin-project-lite', lang='rust', code_ext=('.rs',), indent=4,
                             tabs=False, versions=['0.2.9', '0.2.10', '0.2.11', '0.2.12', '0.2.13', '0.2.14']),
}

SETS['p'] = {
    'mistune': dict(kind='pypi', name='mistune', lang='python', code_ext=('.py',), indent=4, tabs=False,
                    versions=['3.0.0', '3.0.1', '3.0.2', '3.1.0', '3.1.1', '3.1.2', '3.1.3']),
    'exceptiongroup': dict(kind='pypi', name='exceptiongroup', lang='python', code_ext=('.py',), indent=4,
                           tabs=False, versions=['1.1.1', '1.1.2', '1.1.3', '1.2.0', '1.2.1', '1.2.2']),
    'fs-extra': dict(kind='npm', name='fs-extra', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                     versions=['11.0.0', '11.1.0', '11.1.1', '11.2.0', '11.3.0', '11.3.1', '11.3.2']),
    'luxon': dict(kind='npm', name='luxon', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                  versions=['3.3.0', '3.4.0', '3.4.1', '3.4.2', '3.4.3', '3.4.4']),
    'getrandom': dict(kind='crate', name='getrandom', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                      versions=['0.2.10', '0.2.11', '0.2.12', '0.2.13', '0.2.14', '0.2.15']),
    'paste': dict(kind='crate', name='paste', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                  versions=['1.0.9', '1.0.10', '1.0.11', '1.0.12', '1.0.13', '1.0.14', '1.0.15']),
}

SETS['q'] = {
    'marshmallow': dict(kind='pypi', name='marshmallow', lang='python', code_ext=('.py',), indent=4, tabs=False,
                        versions=['3.20.0', '3.20.1', '3.20.2', '3.21.0', '3.21.1', '3.21.2', '3.21.3', '3.22.0']),
    'structlog': dict(kind='pypi', name='structlog', lang='python', code_ext=('.py',), indent=4, tabs=False,
                      versions=['23.1.0', '23.2.0', '23.3.0', '24.1.0', '24.2.0', '24.3.0', '24.4.0']),
    'nodemailer': dict(kind='npm', name='nodemailer', lang='javascript', code_ext=('.js',), indent=4, tabs=False,
                       versions=['6.9.10', '6.9.11', '6.9.12', '6.9.13', '6.9.14', '6.9.15', '6.9.16']),
    'mysql2': dict(kind='npm', name='mysql2', lang='javascript', code_ext=('.js',), indent=2, tabs=False,
                   versions=['3.9.0', '3.9.1', '3.9.2', '3.9.3', '3.9.4', '3.9.5', '3.9.6', '3.9.7']),
    'camino': dict(kind='crate', name='camino', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                   versions=['1.1.6', '1.1.7', '1.1.8', '1.1.9', '1.1.10', '1.1.11']),
    'url': dict(kind='crate', name='url', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                versions=['2.4.0', '2.4.1', '2.5.0', '2.5.1', '2.5.2']),
}

SETS['r'] = {
    'jinja2': dict(kind='pypi', name='jinja2', lang='python', code_ext=('.py',), indent=4, tabs=False,
                   versions=['3.1.0', '3.1.1', '3.1.2', '3.1.3', '3.1.4', '3.1.5', '3.1.6']),
    'cattrs': dict(kind='pypi', name='cattrs', lang='python', code_ext=('.py',), indent=4, tabs=False,
                   versions=['23.1.2', '23.2.0', '23.2.1', '23.2.2', '23.2.3', '24.1.0']),
    'eslint-plugin-unicorn': dict(kind='npm', name='eslint-plugin-unicorn', lang='javascript', code_ext=('.js',),
                                  indent=1, tabs=True,
                                  versions=['50.0.1', '51.0.0', '51.0.1', '52.0.0', '53.0.0', '54.0.0']),
    'axios': dict(kind='npm', name='axios', lang='javascript', code_ext=('.js', '.ts', '.cts'), indent=2,
                  tabs=False, versions=['1.6.0', '1.6.1', '1.6.2', '1.6.3', '1.6.4', '1.6.5', '1.6.6']),
    'serde_json': dict(kind='crate', name='serde_json', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                       versions=['1.0.115', '1.0.116', '1.0.117', '1.0.118', '1.0.119', '1.0.120']),
    'tempfile': dict(kind='crate', name='tempfile', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                     versions=['3.8.1', '3.9.0', '3.10.0', '3.10.1', '3.11.0', '3.12.0']),
}

SETS['s'] = {
    'h11': dict(kind='pypi', name='h11', lang='python', code_ext=('.py',), indent=4, tabs=False,
                versions=['0.11.0', '0.12.0', '0.13.0', '0.14.0', '0.15.0', '0.16.0']),
    'anyio': dict(kind='pypi', name='anyio', lang='python', code_ext=('.py',), indent=4, tabs=False,
                  versions=['4.0.0', '4.1.0', '4.2.0', '4.3.0', '4.4.0', '4.5.0']),
    'globby': dict(kind='npm', name='globby', lang='javascript', code_ext=('.js', '.ts'), indent=1, tabs=True,
                   versions=['13.2.0', '13.2.1', '13.2.2', '14.0.0', '14.0.1', '14.0.2', '14.1.0']),
    'body-parser': dict(kind='npm', name='body-parser', lang='javascript', code_ext=('.js',), indent=2,
                        tabs=False, versions=['1.19.0', '1.19.1', '1.19.2', '1.20.0', '1.20.1', '1.20.2',
                                              '1.20.3']),
    'itertools': dict(kind='crate', name='itertools', lang='rust', code_ext=('.rs',), indent=4, tabs=False,
                      versions=['0.11.0', '0.12.0', '0.12.1', '0.13.0', '0.14.0']),
    'aho-corasick': dict(kind='crate', name='aho-corasick', lang='rust', code_ext=('.rs',), indent=4,
                         tabs=False, versions=['1.0.4', '1.0.5', '1.1.0', '1.1.1', '1.1.2', '1.1.3']),
}

if __name__ == '__main__':
    # --set a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s chooses the package set (default a); the remaining options are make_corpus.py's.
    chosen = 'a'
    if '--set' in sys.argv:
        i = sys.argv.index('--set')
        chosen = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    make_corpus.PACKAGES = SETS[chosen]
    make_corpus.main()
