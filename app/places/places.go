// Package places is where the app keeps its files on each OS when no
// --data-dir is given (the data, config and log directories), and the one-time
// move of the cache and the log from where versions before issue #17 kept them.
package places

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// appDirName is the directory, inside each of the OS's places, that holds this app's files.
const appDirName = "checkpoint-explorer"

// Places is where the app keeps each kind of file when no --data-dir is given.
type Places struct {
	Data   string // the cache: the XDG data home, Application Support, %AppData%
	Config string // config.json and window.json: os.UserConfigDir
	Log    string // the log: the XDG state home, ~/Library/Logs, %LocalAppData%
}

// Default resolves the OS's places for this app.
//
//	Linux and other Unix: data $XDG_DATA_HOME (~/.local/share), config $XDG_CONFIG_HOME
//	  (~/.config), log $XDG_STATE_HOME (~/.local/state), each with /checkpoint-explorer.
//	macOS: data and config ~/Library/Application Support/checkpoint-explorer, log
//	  ~/Library/Logs/checkpoint-explorer.
//	Windows: data and config %AppData%\checkpoint-explorer, log
//	  %LocalAppData%\checkpoint-explorer\Logs.
func Default() (Places, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return Places{}, fmt.Errorf("no user config dir (set --data-dir): %w", err)
	}
	p := Places{Config: filepath.Join(cfg, appDirName)}
	switch runtime.GOOS {
	case "windows":
		appData := os.Getenv("AppData")
		local := os.Getenv("LocalAppData")
		if appData == "" || local == "" {
			return Places{}, errors.New("neither %AppData% nor %LocalAppData% is set (set --data-dir)")
		}
		p.Data = filepath.Join(appData, appDirName)
		p.Log = filepath.Join(local, appDirName, "Logs")
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return Places{}, fmt.Errorf("no home directory (set --data-dir): %w", err)
		}
		p.Data = filepath.Join(home, "Library", "Application Support", appDirName)
		p.Log = filepath.Join(home, "Library", "Logs", appDirName)
	default:
		data, err := xdgDir("XDG_DATA_HOME", ".local/share")
		if err != nil {
			return Places{}, err
		}
		state, err := xdgDir("XDG_STATE_HOME", ".local/state")
		if err != nil {
			return Places{}, err
		}
		p.Data = filepath.Join(data, appDirName)
		p.Log = filepath.Join(state, appDirName)
	}
	return p, nil
}

// xdgDir is $env when it is an absolute path (the XDG spec ignores relative
// ones), else ~/fallback.
func xdgDir(env, fallback string) (string, error) {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("neither $%s nor a home directory (set --data-dir): %w", env, err)
	}
	return filepath.Join(home, filepath.FromSlash(fallback)), nil
}
