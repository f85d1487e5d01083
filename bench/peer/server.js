// bench/classroom_load.py's peer: a boardgame.io 0.50.2 server (Koa + socket.io 4,
// in-memory storage, one Node process) playing a War-like table that reveals per round.
//
//     node bench/peer/server.js PORT          (after `cd bench/peer && npm ci`)
//
// The game, "war": a 52-card deck dealt to 2-4 players, face down. Every round each
// player reveals the top card of their hand, in any order (all players are active at
// once; the move ignores the state version it was sent with, as our War's reveals do:
// DESIGN.md, Concurrency); once all have revealed, the highest card takes the round's
// cards (to the bottom of that hand; a tie leaves them in the pot for the next round's
// winner). A hand that runs out is out; the last hand standing wins, or the biggest
// after MAX_ROUNDS. `playerView` strips every hand to its count: a phone sees the
// face-up cards, the pot, the counts and the last round, never a card still face down.
//
// Phones use boardgame.io's own protocol: the Lobby API over HTTP to create a match and
// take a seat (credentials), then its socket.io namespace `/war`: `sync`, then `update`
// with a MAKE_MOVE action; the server sends every connected seat its filtered state after
// each accepted move (boardgame.io sends no acknowledgement).
'use strict';

const { Server } = require('boardgame.io/server');
const { ActivePlayers, INVALID_MOVE } = require('boardgame.io/core');

const MAX_ROUNDS = Number(process.env.PEER_MAX_ROUNDS || 500); // PEER_MAX_ROUNDS: a test of re-seating

function rank(card) {
  return card % 13; // 0 = two ... 12 = ace
}

const War = {
  name: 'war',
  minPlayers: 2,
  maxPlayers: 4,

  setup: ({ ctx, random }) => {
    const deck = random.Shuffle([...Array(52).keys()]);
    const hands = {};
    ctx.playOrder.forEach((id) => { hands[id] = []; });
    deck.forEach((card, i) => hands[ctx.playOrder[i % ctx.numPlayers]].push(card));
    const faceUp = {};
    ctx.playOrder.forEach((id) => { faceUp[id] = null; });
    return { hands, faceUp, pot: [], round: 1, last: null };
  },

  turn: { activePlayers: ActivePlayers.ALL }, // every player may reveal, in any order

  moves: {
    reveal: {
      ignoreStaleStateID: true,
      move: ({ G, playerID }) => {
        const hand = G.hands[playerID];
        if (G.faceUp[playerID] !== null || hand.length === 0) return INVALID_MOVE;
        G.faceUp[playerID] = hand.shift();
        const inPlay = Object.keys(G.hands).filter((id) => G.hands[id].length > 0 || G.faceUp[id] !== null);
        if (inPlay.some((id) => G.faceUp[id] === null)) return;
        // Everyone still in has revealed: the battle.
        const cards = inPlay.map((id) => G.faceUp[id]);
        const best = Math.max(...cards.map(rank));
        const winners = inPlay.filter((id) => rank(G.faceUp[id]) === best);
        G.pot.push(...cards);
        inPlay.forEach((id) => { G.faceUp[id] = null; });
        if (winners.length === 1) {
          G.hands[winners[0]].push(...G.pot);
          G.pot = [];
        }
        G.last = { round: G.round, cards, winner: winners.length === 1 ? winners[0] : null };
        G.round += 1;
      },
    },
  },

  endIf: ({ G }) => {
    const left = Object.keys(G.hands).filter((id) => G.hands[id].length > 0);
    if (left.length === 1) return { winner: left[0] };
    if (G.round > MAX_ROUNDS) {
      const most = Object.keys(G.hands).reduce((a, b) => (G.hands[a].length >= G.hands[b].length ? a : b));
      return { winner: most };
    }
    return undefined;
  },

  playerView: ({ G }) => {
    const counts = {};
    Object.keys(G.hands).forEach((id) => { counts[id] = G.hands[id].length; });
    return { ...G, hands: counts };
  },
};

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [War], origins: ['*'] });
server.router.get('/', (ctx) => { ctx.body = 'peer'; });
server.run({ port, callback: () => console.log(`boardgame.io peer on 127.0.0.1:${port}`) });
